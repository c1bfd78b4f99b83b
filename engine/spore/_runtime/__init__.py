"""Process-level runtime policy of the C++ kernels: the OpenMP thread policy (`threads`) and the
persistent conv tuning cache (`tuning_cache`). Private: the public knobs are environment variables
(SPORE_NUM_THREADS, SPORE_WAIT_POLICY, SPORE_TUNING, SPORE_CACHE_DIR) documented in the README."""
