import { createHash, randomBytes } from 'crypto';

import { FieldError } from './fieldError';

/** The API takes idempotency keys of 1-255 characters (body field or header). */
const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

/**
 * Characters a key may not hold, because two keys that look alike on screen must be the same key (and
 * payment): invisible, control and separator characters, every space but the ASCII one, and U+2800 (the
 * blank Braille pattern, shown as a space).
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\p{Variation_Selector}\u2800]|(?! )\p{Zs}/u;

/** Where the first invisible character of `text` is (1-based, in characters), and its code point as U+XXXX. */
function invisibleCharacter(text: string): { position: number; codePoint: string } | undefined {
	let position = 0;
	for (const char of text) {
		position++;
		if (INVISIBLE.test(char)) return { position, codePoint: codePoints(char) };
	}
	return undefined;
}

/** U+XXXX for each code point of `text`. */
export function codePoints(text: string): string {
	return [...text].map((char) => `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`).join(' ');
}

/** A code point that joins the one before it on screen (a combining mark, a Hangul vowel or final jamo). */
const JOINS_BEFORE = /[\p{M}\u1160-\u11FF\uD7B0-\uD7FF]/u;

/**
 * Where `text` first differs from its NFC form (1-based), what it holds there and what NFC writes instead;
 * undefined when it is in NFC. "é" as U+00E9 and as U+0065 U+0301 (macOS file names) look the same.
 */
export function notNfc(text: string): { position: number; holds: string; nfc: string } | undefined {
	const nfc = text.normalize('NFC');
	if (nfc === text) return undefined;
	const given = [...text];
	const normal = [...nfc];
	let at = 0;
	while (at < given.length && at < normal.length && given[at] === normal[at]) at++;
	// The character there with the marks that join it, in both forms.
	const cluster = (chars: string[]) => {
		let end = at + 1;
		while (end < chars.length && JOINS_BEFORE.test(chars[end])) end++;
		return chars.slice(at, end).join('');
	};
	return { position: at + 1, holds: codePoints(cluster(given)), nfc: codePoints(cluster(normal)) };
}

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
	const invisible = invisibleCharacter(text);
	if (invisible) {
		throw new FieldError(
			field,
			`must hold printable characters only: it contains the invisible, space-like or control character ${invisible.codePoint} at position ${invisible.position}`,
		);
	}
	// Keys that look alike must be one key: one written in NFC and one not would name two payments. Refused,
	// not normalised: a key sent as it was by an earlier version must not silently become another key.
	const composed = notNfc(text);
	if (composed) {
		throw new FieldError(
			field,
			`must be in Unicode's composed form (NFC), so that keys that look alike are the same key: at position ${composed.position} it holds ${composed.holds}, which NFC writes as ${composed.nfc}; nothing was sent: normalise it where it is mapped, e.g. {{ String($json.invoice).normalize('NFC') }}`,
		);
	}
	if (NUMBER_LIKE.test(text)) {
		throw new FieldError(field, `must not be "${text}": that is how a broken number looks (NaN, Infinity or e notation), not a business reference`);
	}
	return text;
}

/**
 * The lineage of an execution, minted by its first keyed write and kept in n8n's execution custom data,
 * which n8n's Retry copies into every retry; a new execution mints a new one.
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
	/** The node: `name:` and its name, which n8n's Retry with the saved workflow finds it by. */
	nodeId: string;
	/** Which run of the node (a loop runs it several times in one execution). */
	runIndex: number;
	itemIndex: number;
	/** The endpoint (and target) written to, never the body: a changed body meets the service's 409. */
	request: string;
}

/**
 * One key per intended write (item, node, run, execution and its retries). The body is left out on purpose:
 * a retry with other values for an existing order meets the service's 409 instead of making a second order.
 */
export function deriveIdempotencyKey(parts: DerivedKeyParts): string {
	const digest = createHash('sha256')
		.update(stableStringify(['v2', parts.instanceId, parts.workflowId, parts.lineage, parts.nodeId, parts.runIndex, parts.itemIndex, parts.request]))
		.digest('hex');
	return `n8n-${digest.slice(0, 48)}`;
}

/**
 * "Expires In (Minutes)" as a time from the lineage's start, so a retry sends the same body; from now when
 * that is no longer comfortably ahead (an existing order then meets the 409; its own expiry has passed).
 */
export function relativeExpiry(anchorMs: number | undefined, minutes: number, nowMs: number): string {
	const minimumAheadMs = 60_000;
	let at = (anchorMs ?? nowMs) + minutes * 60_000;
	if (at < nowMs + minimumAheadMs) at = nowMs + minutes * 60_000;
	return new Date(Math.ceil(at / 1000) * 1000).toISOString();
}

/**
 * Whether the service made the order during this request (a replayed key gets the first answer again):
 * surely when no earlier request could have carried the key, else when the order is not older than this try.
 */
export function createdByThisRequest(opts: { firstPossibleUse: boolean; createdAt: unknown; requestStartedMs: number; skewMs?: number }): boolean {
	return opts.firstPossibleUse || notOlder(opts.createdAt, opts.requestStartedMs, opts.skewMs);
}

/** Whether `createdAt` is not older than `startMs`, the clocks of n8n and the service agreeing to within `skewMs` (default 0: NTP). */
function notOlder(createdAt: unknown, startMs: number, skewMs = 0): boolean {
	const created = typeof createdAt === 'string' ? Date.parse(createdAt) : NaN;
	return !Number.isNaN(created) && created >= startMs - skewMs;
}

/**
 * Whether a Base URL names this computer, where the API key may go over plain http. It says nothing about
 * money (a local proxy can lead to the real service): the credential's Environment does.
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
 * `created` as a workflow branches on it: made in this execution or its retries (its lineage). Any order a
 * Derived key returns was; a Business Key's when this request made it or it is not older than the lineage.
 */
export function createdInLineage(opts: { derived: boolean; byThisRequest: boolean; createdAt: unknown; lineageStartMs?: number; skewMs?: number }): boolean {
	if (opts.derived || opts.byThisRequest) return true;
	return opts.lineageStartMs !== undefined && notOlder(opts.createdAt, opts.lineageStartMs, opts.skewMs);
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
