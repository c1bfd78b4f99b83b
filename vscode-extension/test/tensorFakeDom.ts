/**
 * A minimal DOM for node's test runner: just what src/tensorView/draw.ts calls (createElement(NS),
 * attributes, textContent, append, style, events). `innerHTML` is deliberately missing: drawing code
 * that parsed markup would throw here instead of passing.
 */
export class FakeNode {
  children: FakeNode[] = [];
  attributes = new Map<string, string>();
  style: Record<string, string> = {};
  listeners = new Map<string, ((ev: { target: FakeNode }) => void)[]>();
  private text = "";

  constructor(readonly ownerDocument: FakeDocument, readonly tagName: string, readonly namespaceURI: string | null = null) {}

  setAttribute(k: string, v: string): void { this.attributes.set(k, String(v)); }
  getAttribute(k: string): string | null { return this.attributes.get(k) ?? null; }
  appendChild(n: FakeNode): FakeNode { this.children.push(n); return n; }
  append(...ns: FakeNode[]): void { for (const n of ns) this.appendChild(n); }
  replaceChildren(...ns: FakeNode[]): void { this.children = [...ns]; this.text = ""; }
  addEventListener(type: string, fn: (ev: { target: FakeNode }) => void): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), fn]);
  }
  dispatch(type: string, target: FakeNode): void { for (const fn of this.listeners.get(type) ?? []) fn({ target }); }

  get textContent(): string { return this.text + this.children.map((c) => c.textContent).join(""); }
  set textContent(v: string) { this.children = []; this.text = String(v); }

  get classes(): string[] { return (this.getAttribute("class") ?? "").split(/\s+/).filter(Boolean); }
  /** Every descendant (depth first), self first. */
  all(): FakeNode[] { return [this, ...this.children.flatMap((c) => c.all())]; }
  byClass(cls: string): FakeNode[] { return this.all().filter((n) => n.classes.includes(cls)); }
  one(cls: string): FakeNode {
    const found = this.byClass(cls);
    if (found.length !== 1) throw new Error(`expected one .${cls}, found ${found.length}`);
    return found[0];
  }
}

export class FakeDocument {
  createElement(tag: string): FakeNode { return new FakeNode(this, tag.toUpperCase()); }
  createElementNS(ns: string, tag: string): FakeNode { return new FakeNode(this, tag, ns); }
  createTextNode(text: string): FakeNode { const n = new FakeNode(this, "#text"); n.textContent = text; return n; }
}

/** A container element as the renderer API hands one over. */
export function container(): { el: HTMLElement; node: FakeNode } {
  const node = new FakeDocument().createElement("div");
  return { el: node as unknown as HTMLElement, node };
}
