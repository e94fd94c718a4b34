import type { IExecuteFunctions, INode } from 'n8n-workflow';

/**
 * Values read once per run and key (an item, a query). n8n gives each run of a node its own execute
 * context, so the context keys the run: checkRow and execute then read an item's values once, not
 * twice. A read that throws, or a promise that rejects, keeps nothing: the next call reads again.
 */
export function readOncePerRun<T, K = number>(): (run: object, key: K, read: () => T) => T {
	const runs = new WeakMap<object, Map<K, T>>();
	return (run, key, read) => {
		const values = runs.get(run) ?? new Map<K, T>();
		if (values.has(key)) return values.get(key) as T;
		const value = read();
		values.set(key, value);
		runs.set(run, values);
		if (value instanceof Promise) value.catch(() => values.delete(key));
		return value;
	};
}

const nodeOnce = readOncePerRun<INode, 'node'>();

/** The node as saved, read once per run: n8n's getNode() deep-copies the node on every call. Never changed. */
export function nodeOfRun(ctx: Pick<IExecuteFunctions, 'getNode'>): INode {
	return nodeOnce(ctx, 'node', () => ctx.getNode());
}
