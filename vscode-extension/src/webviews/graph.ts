/** SCAFFOLD: replaced by the graph webview (issue 13). */
document.body.dataset.sporeView = "graph";
