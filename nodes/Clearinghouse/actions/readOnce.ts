import type { IExecuteFunctions, INode } from 'n8n-workflow';

/**
 * Values read once per run and item. n8n gives each run of a node its own execute context, so the
 * context keys the run: a router pass over every row (checkRow) and the row's own execution then read
 * the same values, and a batch pays n8n's parameter reads (expressions) once per row, not twice. A read
 * that throws keeps nothing: the next call reads again (and fails again, with its own message).
 */
export function readOncePerItem<T>(): (run: object, itemIndex: number, read: () => T) => T {
	const runs = new WeakMap<object, Map<number, T>>();
	return (run, itemIndex, read) => {
		let items = runs.get(run);
		if (items?.has(itemIndex)) return items.get(itemIndex) as T;
		const value = read();
		if (!items) runs.set(run, (items = new Map()));
		items.set(itemIndex, value);
		return value;
	};
}

const nodesOfRun = new WeakMap<object, INode>();

/**
 * The node as saved (type, version, raw parameters), read once per run: n8n's getNode() returns a deep
 * copy of the node on every call, and a batch reads it several times per row (which parameters are
 * plain `$json` paths, the key's default for the version, a tool run). Read only, never changed.
 */
export function nodeOfRun(ctx: Pick<IExecuteFunctions, 'getNode'>): INode {
	let node = nodesOfRun.get(ctx);
	if (!node) nodesOfRun.set(ctx, (node = ctx.getNode()));
	return node;
}
