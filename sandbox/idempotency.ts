/** The one idempotency rule of the sandbox's keyed writes: same key and body, same answer; other body, 409. */
import type { IdempotencyRecord } from './state';
import { fail } from './util';

export interface Keyed {
	/** Where the records live (a data-file table, or one order's own). */
	store: Record<string, IdempotencyRecord>;
	/** The store key; null when the request carries no key (nothing is replayed or recorded). */
	key: string | null;
	/** Hash of what makes two requests "the same". */
	hash: string;
	/** Status of the first answer and of every replay. */
	status: number;
	/** The 409 `idempotency_key_reused` wording (and its extra fields) of this endpoint. */
	reused: { message: string; extra?: Record<string, unknown> };
}

/**
 * Replays the answer recorded under the key, or runs `write` and records its answer. Only an answer
 * that `write` returns is recorded: a refusal (thrown) leaves the key free. The answer is a JSON
 * snapshot, so the first answer and every replay are the same however the records change later.
 */
export function replayOrRecord(k: Keyed, write: () => unknown): { status: number; body: unknown } {
	const prev = k.key === null ? undefined : k.store[k.key];
	if (prev) {
		if (prev.hash !== k.hash) fail(409, 'idempotency_key_reused', k.reused.message, k.reused.extra);
		return { status: k.status, body: prev.response };
	}
	const response = JSON.parse(JSON.stringify(write())) as unknown;
	if (k.key !== null) k.store[k.key] = { hash: k.hash, response };
	return { status: k.status, body: response };
}
