import { createHash, randomBytes } from 'crypto';

import { FieldError } from './fieldError';

/** The API takes idempotency keys of 1-255 characters (body field or header). */
const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

/**
 * Characters a key may not hold: control characters (C0, DEL, C1), format characters (zero-width
 * space/joiners, the BOM, soft hyphen, bidi marks, embeddings, overrides and isolates), line and
 * paragraph separators. Two keys that look alike on screen must be the same key.
 */
// eslint-disable-next-line no-control-regex
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/;

/** Text that reads as a number n8n or JavaScript made, not as a business reference. */
const NUMBER_LIKE = /^[+-]?(NaN|Infinity|(\d+\.?\d*|\.\d+)e[+-]?\d+)$/i;

/** Checks a key the user gave (for example an invoice number). */
export function validateIdempotencyKey(key: unknown, field = 'idempotencyKey'): string {
	if (typeof key === 'number') {
		// A number key must survive as the same text: 1e21, 0.1 + 0.2 or NaN would not name one invoice.
		if (!Number.isSafeInteger(key)) {
			throw new FieldError(
				field,
				`must be text, or a whole number up to ${Number.MAX_SAFE_INTEGER} (got the number ${String(key)}); map the reference as text`,
			);
		}
	} else if (typeof key !== 'string') {
		throw new FieldError(field, 'must be text of 1 to 255 characters');
	}
	const text = String(key).trim();
	if (text.length === 0) throw new FieldError(field, 'must not be empty');
	if (text.length > IDEMPOTENCY_KEY_MAX_LENGTH) {
		throw new FieldError(field, `must be at most ${IDEMPOTENCY_KEY_MAX_LENGTH} characters (got ${text.length})`);
	}
	const invisible = INVISIBLE.exec(text);
	if (invisible) {
		const code = invisible[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
		throw new FieldError(
			field,
			`must hold printable characters only: it contains the invisible or control character U+${code} at position ${invisible.index + 1}`,
		);
	}
	if (NUMBER_LIKE.test(text)) {
		throw new FieldError(field, `must not be "${text}": that is how a broken number looks (NaN, Infinity or e notation), not a business reference`);
	}
	return text;
}

/**
 * The lineage of an execution: minted by the first keyed write of an execution and kept in n8n's
 * execution custom data, which n8n's Retry (executions list, both variants) copies into the retry
 * and a retry of a retry. A new execution (Execute Workflow, a schedule, a new webhook call) starts
 * without it and mints a new one.
 */
export interface Lineage {
	/** Random: two n8n databases whose execution ids collide never share a key. */
	nonce: string;
	/** When the lineage began (ms): relative expiries count from here, so a retry sends the same body. */
	anchorMs: number;
	/** The execution that minted it, for people reading the custom data. */
	executionId: string;
}

/** Custom data key: letters, digits and underscores only, at most 50 characters (n8n's rules). */
export const LINEAGE_CUSTOM_DATA_KEY = 'clearinghouse_key_lineage';

export function mintLineage(executionId: string, nowMs: number): Lineage {
	return { nonce: randomBytes(16).toString('hex'), anchorMs: nowMs, executionId };
}

/** `v1.<nonce>.<anchorMs>.<executionId>`: well under n8n's 255-character value limit. */
export function formatLineage(lineage: Lineage): string {
	return `v1.${lineage.nonce}.${lineage.anchorMs}.${lineage.executionId.slice(0, 100)}`;
}

export function parseLineage(value: unknown): Lineage | undefined {
	if (typeof value !== 'string') return undefined;
	const match = /^v1\.([0-9a-f]{32})\.(\d{1,15})\.(.*)$/.exec(value);
	if (!match) return undefined;
	return { nonce: match[1], anchorMs: Number(match[2]), executionId: match[3] };
}

export interface DerivedKeyParts {
	/** n8n instance id. */
	instanceId: string;
	workflowId: string;
	/** The lineage nonce: the same in an execution, its retries and their retries. */
	lineage: string;
	/** The node's id: stable when the node is renamed. */
	nodeId: string;
	/** Which run of the node (a loop runs it several times in one execution). */
	runIndex: number;
	itemIndex: number;
	/** The endpoint (and target) written to, never the body: a changed body meets the service's 409. */
	request: string;
}

/**
 * One key per intended write: the same input item at the same node and run of it, in an execution
 * and every retry of it. The body is left out on purpose: a retry that sends other values for an
 * order that already exists is refused by the service (409) instead of becoming a second order.
 */
export function deriveIdempotencyKey(parts: DerivedKeyParts): string {
	const digest = createHash('sha256')
		.update(stableStringify(['v2', parts.instanceId, parts.workflowId, parts.lineage, parts.nodeId, parts.runIndex, parts.itemIndex, parts.request]))
		.digest('hex');
	return `n8n-${digest.slice(0, 48)}`;
}

/**
 * "Expires In (Minutes)" as a time: counted from the lineage's start, so a retry sends the same
 * body; when that time is no longer comfortably ahead (a retry much later), from now, and an order
 * that already exists then meets the 409 (its own expiry has passed anyway).
 */
export function relativeExpiry(anchorMs: number | undefined, minutes: number, nowMs: number): string {
	const minimumAheadMs = 60_000;
	let at = (anchorMs ?? nowMs) + minutes * 60_000;
	if (at < nowMs + minimumAheadMs) at = nowMs + minutes * 60_000;
	return new Date(Math.ceil(at / 1000) * 1000).toISOString();
}

/**
 * Whether the service made the order during this request. The service answers a replayed key with
 * the same response as the first time, so: certainly created when no earlier request could have
 * carried the key (the lineage is this execution's own and this is the key's first try here);
 * otherwise created when the order is not older than the start of this try, which assumes the
 * clocks of n8n and the service agree to within `skewMs` (default 0: NTP-synchronised hosts).
 */
export function createdByThisRequest(opts: { firstPossibleUse: boolean; createdAt: unknown; requestStartedMs: number; skewMs?: number }): boolean {
	if (opts.firstPossibleUse) return true;
	const created = typeof opts.createdAt === 'string' ? Date.parse(opts.createdAt) : NaN;
	if (Number.isNaN(created)) return false;
	return created >= opts.requestStartedMs - (opts.skewMs ?? 0);
}

/**
 * Whether a Base URL names this computer (127.0.0.0/8, localhost, [::1]): where the API key may go
 * over plain http. It says nothing about money (a local proxy can lead to the real service): only
 * the credential's Environment does. Anything unparsable counts as not loopback.
 */
export function isLoopbackUrl(raw: unknown): boolean {
	let host: string;
	try {
		host = new URL(String(raw ?? '').trim()).hostname.toLowerCase();
	} catch {
		return false;
	}
	if (host === 'localhost' || host === '[::1]') return true;
	const octets = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
	return octets !== null && octets.slice(1).every((n) => Number(n) <= 255);
}

/**
 * `created` as a workflow branches on it: the order was made during this execution or n8n's
 * retries of it (its lineage), not found from an earlier run. A Derived key belongs to the lineage,
 * so any order it returns was made in it. A Business Key may come from any earlier run: made in the
 * lineage when this request made it, or when the order is not older than the lineage's start
 * (the clocks of n8n and the service agreeing to within `skewMs`, as for createdByThisRequest).
 */
export function createdInLineage(opts: { derived: boolean; byThisRequest: boolean; createdAt: unknown; lineageStartMs?: number; skewMs?: number }): boolean {
	if (opts.derived || opts.byThisRequest) return true;
	if (opts.lineageStartMs === undefined) return false;
	const created = typeof opts.createdAt === 'string' ? Date.parse(opts.createdAt) : NaN;
	return !Number.isNaN(created) && created >= opts.lineageStartMs - (opts.skewMs ?? 0);
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
