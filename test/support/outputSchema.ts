/**
 * The JSON Schema subset n8n's output-schema files use (`type`, `properties`, `items`), inferred
 * from real outputs and checked against them. n8n reads these files to show a node's output fields
 * before it has run (`n8n-core/dist/nodes-loader/output-schema-resolver.js`).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface Schema {
	type?: string | string[];
	properties?: Record<string, Schema>;
	items?: Schema;
	version?: number;
}

const typeOf = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'number' : typeof value);

/** The schema of one value. */
export function infer(value: unknown): Schema {
	const type = typeOf(value);
	if (type === 'object') {
		const properties: Record<string, Schema> = {};
		for (const [key, v] of Object.entries(value as Record<string, unknown>)) properties[key] = infer(v);
		return { type, properties };
	}
	if (type === 'array') {
		const items = (value as unknown[]).map(infer).reduce<Schema | undefined>((a, b) => (a ? merge(a, b) : b), undefined);
		return items ? { type, items } : { type };
	}
	return { type };
}

/** A schema both values fit: union of properties; a field seen as null and as X is X. */
export function merge(a: Schema, b: Schema): Schema {
	const types = new Set([...[a.type ?? []].flat(), ...[b.type ?? []].flat()]);
	if (types.size > 1) types.delete('null');
	const type = types.size === 1 ? [...types][0] : [...types].sort();
	const out: Schema = { type };
	if (a.properties || b.properties) {
		const properties: Record<string, Schema> = { ...(a.properties ?? {}) };
		for (const [key, s] of Object.entries(b.properties ?? {})) properties[key] = properties[key] ? merge(properties[key], s) : s;
		out.properties = properties;
	}
	if (a.items || b.items) out.items = a.items && b.items ? merge(a.items, b.items) : (a.items ?? b.items);
	return out;
}

/**
 * Where `value` does not fit `schema`: a field the schema does not declare, or a type it does not
 * allow (null is allowed anywhere: the service sends null for fields it has no value for; a field
 * only ever seen as null takes any value).
 */
export function problems(schema: Schema, value: unknown, at = '$'): string[] {
	const type = typeOf(value);
	if (type === 'null') return [];
	const allowed = [schema.type ?? []].flat();
	if (allowed.length === 1 && allowed[0] === 'null') return []; // only ever seen empty: any value fits
	if (allowed.length > 0 && !allowed.includes(type)) return [`${at}: ${type}, schema says ${allowed.join('|')}`];
	if (type === 'object') {
		return Object.entries(value as Record<string, unknown>).flatMap(([key, v]) =>
			schema.properties?.[key] ? problems(schema.properties[key], v, `${at}.${key}`) : [`${at}.${key}: not in the schema`],
		);
	}
	if (type === 'array' && schema.items) return (value as unknown[]).flatMap((v, i) => problems(schema.items!, v, `${at}[${i}]`));
	return [];
}

export function readSchema(file: string): Schema | undefined {
	return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Schema) : undefined;
}

export function writeSchema(file: string, schema: Schema): void {
	mkdirSync(dirname(file), { recursive: true });
	writeFileSync(file, `${JSON.stringify({ ...schema, version: 1 }, null, '\t')}\n`);
}

/** `<node dir>/__schema__/v<version>/<resource>/<operation>.json`, or `.../output.json` without discriminators. */
export function schemaFile(nodeDir: string, version: string, resource?: string, operation?: string): string {
	return resource && operation
		? join(nodeDir, '__schema__', `v${version}`, resource, `${operation}.json`)
		: join(nodeDir, '__schema__', `v${version}`, 'output.json');
}
