/** The one door of every keyed write (a payment order, a receive ruleset, a reward rule, return details); its key from idempotencyKey.ts. */
import type { IDataObject, IExecuteFunctions, IHttpRequestMethods } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { apiRequest, type Api, type LimitsRead, type WrittenRecord } from '../../shared/transport';
import { keyMode, sameRequestAsFirstTry, takeKey, type KeyMode } from './idempotencyKey';

/**
 * Whether a keyed write's error is the service's "key already used with another request" (409): for orders
 * and rulesets the only 409 (the spec); return details and reward rules have others, so the answer must name the key.
 */
export function isKeyReused(error: unknown, what: string): boolean {
	return (
		error instanceof NodeApiError &&
		error.httpCode === '409' &&
		(what === 'payment order' || what === 'receive ruleset' || /idempot/i.test([error.message, ...(error.messages ?? [])].join(' ')))
	);
}

/** A keyed write's error, a reused key's 409 said the way it happened: the record exists with other values, nothing new was made. */
export function keyedWriteError(error: unknown, key: string, what: string, mode: KeyMode): unknown {
	if (isKeyReused(error, what) && error instanceof NodeApiError) {
		error.message =
			what === 'return details'
				? "This item's return details were already sent with this key with other values or another expected revision: check the order's return details before writing again"
				: `This item's ${what} already exists with other values: check it before ${what === 'payment order' ? 'paying' : 'writing'} again`;
		error.description =
			`The idempotency key ${key} was already used for a ${what} with a different request (for example another amount, recipient or expiry, changed before a retry), so nothing new was created. ` +
			`Check the existing ${what} (${EXISTING_RECORD_READ[what as KeyedRecord] ?? 'Get or Get Many'}). To make a new one on purpose, ${mode === 'derived' ? 'run the workflow anew' : 'use a new Business Key'}.`;
	}
	return error;
}

export type KeyedRecord = 'payment order' | 'receive ruleset' | 'return details' | 'reward rule';

/** Where a person sees the record a reused key already made (the spec has no read of rulesets). */
const EXISTING_RECORD_READ: Record<KeyedRecord, string> = {
	'payment order': 'Payment Order → Find by Keys with this key',
	'receive ruleset': "the earlier run's output: the service offers no read of rulesets",
	'return details': 'Payment Order → Get, its return details',
	'reward rule': 'Reward Rule → Get Many',
};

/** The lost-answer words of each record (the transport says "this change" for the others). */
export const WRITTEN_RECORDS: Partial<Record<KeyedRecord, WrittenRecord>> = {
	'payment order': { what: 'this payment order', lookUp: 'Payment Order → Find by Keys (or Get Many) shows whether the order exists' },
};

export interface KeyedSend<T> {
	/** The key taken earlier with `takeKey()`; without it `sendKeyed` takes it for this request (keyRequest). */
	key?: string;
	/** A check between taking the key and sending: a refused Derived key then sends nothing, not even the check's reads. */
	guard?: () => Promise<void>;
	record: KeyedRecord;
	api?: Api;
	method: IHttpRequestMethods;
	path: string;
	/** The body's `idempotencyKey`, or the `Idempotency-Key` header. */
	keyIn: 'body' | 'header';
	body: IDataObject;
	headers?: Record<string, string>;
	/** The read of the account's limits that may explain a refusal naming no field (the transport's limitsOnRefusal). */
	limitsOnRefusal?: (sent: SentRequest) => LimitsRead;
	/** Runs on the first try's request just before it is sent. */
	beforeSend?: (sent: SentRequest) => void;
	/** On the service's 409 for a reused key: the answer to give instead, if any (else the keyed 409 error). */
	onKeyReused?: (sent: SentRequest, error: unknown) => Promise<T | undefined>;
}

/** The body and headers sent: the first try's for this key, item and execution. */
export interface SentRequest {
	body: IDataObject;
	headers: Record<string, string>;
}

export interface KeyedAnswer<T> {
	key: string;
	/** The service's answer (empty when `reused` answers instead). */
	response: IDataObject;
	sent: SentRequest;
	/** The first try of this key for this item in this execution. */
	firstTry: boolean;
	startedMs: number;
	/** What `onKeyReused` answered the service's 409 with. */
	reused?: T;
}

/**
 * The request a key is derived for: the method, the rewards host, the path with its IDs decoded, as given (a
 * path ID never holds `%`). A Derived key depends on it, so it may never change for an existing operation.
 */
export function keyRequest(send: Pick<KeyedSend<unknown>, 'api' | 'method' | 'path'>): string {
	return `${send.method} ${send.api === 'rewards' ? 'rewards ' : ''}${decodeURIComponent(send.path)}`;
}

/**
 * Sends one keyed write: its key (given, or taken here, then `guard`), the first try's request for this key
 * (Retry On Fail resolves `$now` anew), marked idempotent (the transport may repeat it), a 409 said as a reused key.
 */
export async function sendKeyed<T = never>(ctx: IExecuteFunctions, itemIndex: number, send: KeyedSend<T>): Promise<KeyedAnswer<T>> {
	const key = send.key ?? (await takeKey(ctx, itemIndex, keyRequest(send))).key;
	await send.guard?.();
	const keyed: SentRequest =
		send.keyIn === 'body'
			? { body: { ...send.body, idempotencyKey: key }, headers: { ...send.headers } }
			: { body: send.body, headers: { ...send.headers, 'Idempotency-Key': key } };
	const { request: sent, first } = sameRequestAsFirstTry(ctx, itemIndex, key, keyed);
	send.beforeSend?.(sent);
	const startedMs = Date.now();
	try {
		const response = await apiRequest(ctx, {
			api: send.api,
			method: send.method,
			path: send.path,
			headers: Object.keys(sent.headers).length > 0 ? sent.headers : undefined,
			body: sent.body,
			idempotent: true,
			record: WRITTEN_RECORDS[send.record],
			limitsOnRefusal: send.limitsOnRefusal?.(sent),
			itemIndex,
		});
		return { key, response, sent, firstTry: first, startedMs };
	} catch (error) {
		if (send.onKeyReused && isKeyReused(error, send.record)) {
			const reused = await send.onKeyReused(sent, error);
			if (reused !== undefined) return { key, response: {}, sent, firstTry: first, startedMs, reused };
		}
		throw keyedWriteError(error, key, send.record, keyMode(ctx, itemIndex));
	}
}
