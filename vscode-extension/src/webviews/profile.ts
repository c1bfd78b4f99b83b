/** SCAFFOLD: replaced by the profile webview (issue 13). */
document.body.dataset.sporeView = "profile";
