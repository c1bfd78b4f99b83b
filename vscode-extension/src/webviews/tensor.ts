/** SCAFFOLD: replaced by the tensor webview (issue 13). */
document.body.dataset.sporeView = "tensor";
