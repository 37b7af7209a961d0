/**
 * Tells the tree nodes this extension hands to VS Code from the argument objects of scripts.
 *
 * VS Code passes the focused row to view-title commands and the clicked row (plus the selection)
 * to item commands. A command that also takes a scripting object (`{ preset }`, `{ projectId }`…)
 * must not read a row as one (scriptArgs in commands.ts): a row means "run as if clicked with nothing", a scripting object
 * means "do exactly this, never prompt". Nodes are recognised by identity (the providers register
 * every node they return), not by shape, so no field name of a node can pass for an argument.
 */
const issued = new WeakSet<object>();

/** Registers a node a tree provider returns to VS Code; returns it. */
export function treeNode<T extends object>(node: T): T {
  issued.add(node);
  return node;
}

/** Whether `value` is a node some tree provider of this extension returned. */
export function isTreeNode(value: unknown): boolean {
  return typeof value === 'object' && value !== null && issued.has(value);
}
