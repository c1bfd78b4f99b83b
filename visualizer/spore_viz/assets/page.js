/* The standalone page's boot: the payload from the inert JSON block, the viewer on the root, deep
 * links from the URL's fragment (#select=n0, #expand=all). Appended to viewer.js in one module script. */
const sporeView = mount(document.getElementById("spore-root"),
  JSON.parse(document.getElementById("spore-data").textContent), { keys: true, hash: location.hash });
window.addEventListener("hashchange", function () { sporeView.open(location.hash); });
// In a sandboxed frame (opaque origin: a notebook's text/html fallback), tell the host how many boxes were
// drawn: the only way a host, and the tests, can see that the viewer ran under the page's CSP.
if (window.parent !== window && window.origin === "null") {
  const drawn = document.querySelector("svg[data-rendered]");
  window.parent.postMessage({ spore: "rendered", boxes: drawn ? Number(drawn.getAttribute("data-rendered")) : 0 }, "*");
}
