// The project's own ESLint rules (eslint.config.mjs loads them as the `svc` plugin).
//
// svc/null-prototype-records: an object literal that is a record keyed by strings (its type, or
// the type it is given to, has a string index signature: Record<string, T>, { [k: string]: T })
// gets Object.prototype as its prototype. Keyed by data (a metric name, a metadata key, a group
// key, a run id), `obj['__proto__'] = v` replaces or writes through the prototype (`obj.__proto__[0]
// = v` sets Object.prototype[0] for every extension in the host), `obj['constructor']` and
// `obj['toString']` read Object's own functions back, and `k in obj` is true for them. Such a
// record is built with dict() (src/api/dict.ts: a null prototype) or is a Map. Object.fromEntries
// builds on Object.prototype too.

/** Whether `type` (or a member of a union) is a record indexed by strings, not an array. */
function isStringRecord(checker, type) {
  if (!type) return false;
  const parts = type.isUnion() ? type.types : [type];
  return parts.some((t) => t.getStringIndexType() !== undefined && !checker.isArrayLikeType(t));
}

/**
 * Whether the literal is kept to be filled or read by key: a variable's, a field's or a
 * parameter's initial value, a property of another literal, the right side of an assignment (`x ??= {}`), a returned value. A
 * literal handed straight to a call (an element's attributes) is
 * read by its own names where it goes.
 */
function isContainer(node) {
  let p = node.parent;
  while (p && (p.type === 'TSAsExpression' || p.type === 'TSSatisfiesExpression' || p.type === 'TSNonNullExpression' || p.type === 'ConditionalExpression' || (p.type === 'LogicalExpression' && p.right === node))) {
    node = p;
    p = p.parent;
  }
  if (!p) return false;
  switch (p.type) {
    case 'VariableDeclarator':
      return p.init === node;
    case 'AssignmentExpression':
    case 'AssignmentPattern':
      return p.right === node;
    case 'PropertyDefinition':
    case 'Property':
      return p.value === node;
    case 'ReturnStatement':
      return true;
    case 'ArrowFunctionExpression':
      return p.body === node;
    default:
      return false;
  }
}

const nullPrototypeRecords = {
  meta: {
    type: 'problem',
    docs: { description: 'A record keyed by strings has a null prototype (dict()) or is a Map' },
    schema: [],
    messages: {
      literal: 'a record keyed by strings built on Object.prototype: a key such as "__proto__" or "constructor" writes onto or reads from Object.prototype. Build it with dict() (src/api/dict.ts) or use a Map.',
      fromEntries: 'Object.fromEntries builds on Object.prototype: a key such as "constructor" reads Object\'s own function back. Use dict(entries) (src/api/dict.ts) or a Map.',
    },
  },
  create(context) {
    const services = context.sourceCode.parserServices;
    if (!services?.program || !services.esTreeNodeToTSNodeMap) return {};
    const checker = services.program.getTypeChecker();
    const tsNode = (node) => services.esTreeNodeToTSNodeMap.get(node);
    return {
      ObjectExpression(node) {
        if (!isContainer(node)) return;
        const n = tsNode(node);
        // An empty literal given to a record type is one to be filled by key; a literal whose own
        // type is a record got its keys from a spread or a computed name. A literal of fixed
        // names given to a record type (a table of names) is neither.
        const empty = node.properties.length === 0;
        if ((empty && isStringRecord(checker, checker.getContextualType(n))) || isStringRecord(checker, checker.getTypeAtLocation(n))) {
          context.report({ node, messageId: 'literal' });
        }
      },
      CallExpression(node) {
        const c = node.callee;
        if (c.type === 'MemberExpression' && !c.computed && c.object.type === 'Identifier' && c.object.name === 'Object' && c.property.type === 'Identifier' && c.property.name === 'fromEntries') {
          context.report({ node, messageId: 'fromEntries' });
        }
      },
    };
  },
};

module.exports = { rules: { 'null-prototype-records': nullPrototypeRecords } };
