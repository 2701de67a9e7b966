// @ts-check
// Writing into the page only what changed. A state comes several times a move (a
// piece lifted, put down, a roll) and most of the page stays as it was, but writing
// the same text, flag or children again still makes the browser restyle, lay out and
// paint the page anew: on a table's Pi, beside the service, that is most of a page's
// work per state.

// node[name] = value (textContent, hidden, disabled, a dataset entry), if it differs
export function update(node, name, value) {
  if (node[name] !== value) node[name] = value;
}

export function updateAttribute(node, name, value) {
  if (node.getAttribute(name) !== String(value)) node.setAttribute(name, value);
}

// ``nodes`` in ``box`` in place of its children, unless they are the same already
// (alike in every attribute and text; handlers are not compared, so only for nodes
// whose handlers do the same when they look the same)
export function updateChildren(box, nodes) {
  const shown = box.childNodes;
  if (shown.length === nodes.length && nodes.every((node, n) => node.isEqualNode(shown[n]))) return;
  box.replaceChildren(...nodes);
}
