import { createHash } from 'crypto';

/** The API takes idempotency keys of 1-255 characters (body field or header). */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

export class IdempotencyKeyError extends Error {
	constructor(
		readonly field: string,
		readonly rule: string,
	) {
		super(`${field}: ${rule}`);
		this.name = 'IdempotencyKeyError';
	}
}

/** Checks a key the user gave (for example an invoice number). */
export function validateIdempotencyKey(key: unknown, field = 'idempotencyKey'): string {
	if (typeof key !== 'string' && typeof key !== 'number') {
		throw new IdempotencyKeyError(field, 'must be text of 1 to 255 characters');
	}
	const text = String(key).trim();
	if (text.length === 0) throw new IdempotencyKeyError(field, 'must not be empty');
	if (text.length > IDEMPOTENCY_KEY_MAX_LENGTH) {
		throw new IdempotencyKeyError(
			field,
			`must be at most ${IDEMPOTENCY_KEY_MAX_LENGTH} characters (got ${text.length})`,
		);
	}
	return text;
}

export interface DerivedKeyParts {
	/** n8n instance id: execution ids restart at 1 in every n8n database. */
	instanceId: string;
	workflowId: string;
	executionId: string;
	nodeName: string;
	itemIndex: number;
	/** What the request does (operation, target, body): a different request never shares a key. */
	content: unknown;
}

/**
 * A key that stays the same when n8n retries the node within one execution ("Retry On Fail") or the
 * transport repeats a request, and differs for every other request. A re-run of a whole execution
 * gets a new execution id and so a new key: business keys cover that case.
 */
export function deriveIdempotencyKey(parts: DerivedKeyParts): string {
	const digest = createHash('sha256')
		.update(
			stableStringify([
				parts.instanceId,
				parts.workflowId,
				parts.executionId,
				parts.nodeName,
				parts.itemIndex,
				parts.content,
			]),
		)
		.digest('hex');
	return `n8n-${digest.slice(0, 48)}`;
}

/** JSON with sorted object keys, so equal content always hashes equally. */
export function stableStringify(value: unknown): string {
	if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
	if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
	const entries = Object.entries(value as Record<string, unknown>)
		.filter(([, v]) => v !== undefined)
		.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
	return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(',')}}`;
}
