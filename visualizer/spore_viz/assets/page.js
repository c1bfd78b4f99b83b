/* The standalone page's boot: the payload from the inert JSON block, the viewer on the root, deep
 * links from the URL's fragment (#select=n0, #expand=all). Appended to viewer.js in one module script. */
const sporeView = mount(document.getElementById("spore-root"),
  JSON.parse(document.getElementById("spore-data").textContent), { keys: true, hash: location.hash });
window.addEventListener("hashchange", function () { sporeView.open(location.hash); });
