import type { IDataObject } from 'n8n-workflow';

/**
 * Trivial `={{ $json.a.b }}` parameters read without n8n's expression engine (one engine call per parameter
 * and item otherwise: bench/README.md). Only what surely equals the engine's answer (a dotted path through
 * own properties of plain objects to a string or finite number); all else is left to the engine.
 */
const TRIVIAL = /^=\{\{\s*\$json((?:\.[A-Za-z_$][A-Za-z0-9_$]*)+)\s*\}\}$/;
// n8n 2.40.7's unsafe property names (n8n-workflow utils: the engine refuses them)...
const BLOCKED = new Set([
	'__proto__',
	'prototype',
	'constructor',
	'getPrototypeOf',
	'setPrototypeOf',
	'getOwnPropertyDescriptor',
	'getOwnPropertyDescriptors',
	'defineProperty',
	'defineProperties',
	'mainModule',
	'binding',
	'_linkedBinding',
	'_load',
	'prepareStackTrace',
	'__lookupGetter__',
	'__lookupSetter__',
	'__defineGetter__',
	'__defineSetter__',
	'caller',
	'callee',
	'arguments',
	'getBuiltinModule',
	'dlopen',
	'execve',
	'loadEnvFile',
]);
// ...and every name an empty object inherits (toString, hasOwnProperty, ...): the `vm` engine's
// data proxy answers those from Object.prototype even when the item has its own field of that name.
const blocked = (segment: string) => BLOCKED.has(segment) || segment in Object.prototype;

/** The path of a trivial `={{ $json.a.b }}` parameter value, or undefined. */
export function trivialJsonPath(parameter: unknown): string[] | undefined {
	if (typeof parameter !== 'string') return undefined;
	const match = TRIVIAL.exec(parameter);
	if (!match) return undefined;
	const path = match[1].slice(1).split('.');
	return path.some(blocked) ? undefined : path;
}

const isPlainObject = (value: unknown): value is IDataObject =>
	typeof value === 'object' &&
	value !== null &&
	!Array.isArray(value) &&
	(Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null);

/** The string or finite number at `path` in `json`, or undefined when the engine must answer. */
export function readJsonPath(json: unknown, path: string[]): { value: string | number } | undefined {
	let current: unknown = json;
	for (const segment of path) {
		if (!isPlainObject(current) || !Object.prototype.hasOwnProperty.call(current, segment)) return undefined;
		current = current[segment];
	}
	if (typeof current === 'string') return { value: current };
	if (typeof current === 'number' && Number.isFinite(current) && !Object.is(current, -0)) return { value: current };
	return undefined;
}
