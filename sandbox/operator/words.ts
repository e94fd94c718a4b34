/**
 * What the console (sandbox/console/) says, in words: what happened to each webhook delivery (ran,
 * dropped by the receiver and why, failed and why), which workflow an endpoint belongs to, where an
 * order stands in the netting, the surplus of an overfunded order, and a netting close's result.
 */
import type { Engine } from '../engine';
import { IN_FLIGHT } from '../engine';
import type { Attempt, Delivery, Endpoint, Order } from '../state';
import { fromPips, toPips } from '../util';

/**
 * A receiver may acknowledge an event (2xx, so the service does not retry) without acting on it;
 * the package's trigger then answers `{"received": true, "ignored": "<reason>"}`. Its reasons:
 */
export const DROPPED: Record<string, string> = {
	duplicate: 'dropped by the trigger as a duplicate: it has already run this event (a retry or a replay repeats it)',
	stale: 'dropped by the trigger as stale: it has already run a newer state of this order',
	status_not_selected: "dropped by the trigger: the order's status is not one of its Events",
	unknown_status: 'dropped by the trigger: a status it does not know, and its Pass Unknown Statuses is off',
	deposit_event: 'dropped by the trigger: a deposit-only change, and its Include Deposit Events is off',
	order_not_found: "dropped by the trigger: the API has no such order for the trigger's credential",
	ping: 'dropped by the trigger: a test event, and its Emit Ping Events is off',
	event_type: 'dropped by the trigger: not a payment_order event',
	not_a_payment_order_event: 'dropped by the trigger: not a payment_order event',
	not_an_event: 'dropped by the trigger: the body is not an event',
};

export type Outcome = 'queued' | 'sending' | 'ran' | 'dropped' | 'retrying' | 'failed' | 'skipped';

export interface DeliveryView {
	outcome: Outcome;
	/** The outcome in a sentence. */
	says: string;
	/** The receiver's reason when it dropped the event (`duplicate`, `stale`, ...). */
	droppedAs?: string;
}

/** The receiver's answer body as JSON when it is a JSON object. */
function answerJson(snippet: string | null): Record<string, unknown> | undefined {
	if (!snippet) return undefined;
	try {
		const value = JSON.parse(snippet) as unknown;
		return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
	} catch {
		return undefined; // not JSON
	}
}

const ok = (a: Attempt) => a.statusCode !== null && a.statusCode >= 200 && a.statusCode <= 299;

/** The reason a 2xx answer gives for not running the event, if it gives one. */
export function droppedReason(a: Attempt): string | undefined {
	const reason = ok(a) ? answerJson(a.responseSnippet)?.ignored : undefined;
	return typeof reason === 'string' && reason !== '' ? reason : undefined;
}

/** The receiver's own sentence (`error` or `message` of a JSON answer: all that is kept of it, see keptAnswer), shortened. */
function receiverSaid(snippet: string | null): string {
	const json = answerJson(snippet);
	const said = json ? [json.error, json.message].find((v) => typeof v === 'string' && v.trim() !== '') : snippet;
	const text = typeof said === 'string' ? said.replace(/\s+/g, ' ').trim() : '';
	return text.length > 160 ? `${text.slice(0, 160)}…` : text;
}

/**
 * The `message` of a JSON 2xx answer ("Workflow was started"). Other bodies of an accepted delivery are
 * left out: n8n 2.40.7 answers a delivery that started a run with the bare text `firstEntryJson`.
 */
function messageOf(a: Attempt): string {
	const message = answerJson(a.responseSnippet)?.message;
	return typeof message === 'string' ? message.replace(/\s+/g, ' ').trim().slice(0, 160) : '';
}

const seconds = (ms: number) => (ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`);
const STATUS_HINTS: Record<number, string> = {
	401: ' (the receiver did not accept the signature: is the endpoint secret the one it holds?)',
	404: ' (nothing listens at this URL: is the workflow still published?)',
	409: ' (the receiver is still running this event; the retry comes later)',
};

/** One attempt in words: what the receiver answered, or why no answer came. */
export function attemptSays(a: Attempt, timeoutMs: number): string {
	if (a.statusCode === null) {
		return a.error === 'timeout' ? `no answer within ${seconds(timeoutMs)} (timeout)` : `the receiver could not be reached (${a.error ?? 'no answer'})`;
	}
	const said = receiverSaid(a.responseSnippet);
	if (ok(a)) {
		const reason = droppedReason(a);
		if (reason) return `HTTP ${a.statusCode} in ${seconds(a.durationMs)}: ${DROPPED[reason] ?? `dropped by the receiver ("${reason}")`}`;
		return `HTTP ${a.statusCode} in ${seconds(a.durationMs)}: accepted${messageOf(a) ? ` ("${messageOf(a)}")` : ''}`;
	}
	return `HTTP ${a.statusCode} in ${seconds(a.durationMs)}${said ? `: "${said}"` : ''}${STATUS_HINTS[a.statusCode] ?? ''}`;
}

const times = (n: number) => (n === 1 ? 'once' : n === 2 ? 'twice' : `${n} times`);

/** What happened to a delivery, from its status and its attempts' answers. */
export function deliveryView(d: Delivery, timeoutMs: number, at: (ms: number) => string): DeliveryView {
	const last = d.attempts.at(-1);
	const tries = d.attempts.length;
	const onTry = tries > 1 ? ` on attempt ${tries}` : '';
	switch (d.status) {
		case 'SKIPPED':
			return { outcome: 'skipped', says: 'not sent: its endpoint is disabled (SKIPPED). Re-enable the endpoint, then replay this delivery' };
		case 'DISPATCHED':
			return { outcome: 'sending', says: `being sent (attempt ${tries + 1})` };
		case 'DELIVERED': {
			const reason = last ? droppedReason(last) : undefined;
			if (reason) {
				const why = DROPPED[reason] ?? `dropped by the receiver ("${reason}")`;
				return { outcome: 'dropped', droppedAs: reason, says: `${why}; it answered HTTP ${last!.statusCode}${onTry}` };
			}
			const said = last ? messageOf(last) : '';
			return { outcome: 'ran', says: `ran: the receiver accepted it with HTTP ${last?.statusCode ?? '2xx'}${onTry}${said ? ` ("${said}")` : ''}` };
		}
		case 'FAILED':
			return {
				outcome: 'failed',
				says: `failed: ${tries} attempts without a 2xx answer, the service gave up${last ? ` (last: ${attemptSays(last, timeoutMs)})` : ''}. Replay it once the receiver works`,
			};
		default: {
			if (!last) return { outcome: 'queued', says: 'waiting to be sent' };
			const next = d.nextAttemptAt !== null ? `; next attempt at ${at(d.nextAttemptAt).slice(11, 19)} UTC` : '';
			return { outcome: 'retrying', says: `failed ${times(tries)} so far (last: ${attemptSays(last, timeoutMs)})${next}` };
		}
	}
}

/** The name the console gives an endpoint: its description (a trigger names its workflow there), else its URL path and id. */
export function endpointName(e: Endpoint): string {
	const description = e.description?.trim();
	if (description) return description;
	let path = e.url;
	try {
		path = new URL(e.url).pathname;
	} catch {
		// keep the URL as it is
	}
	return `no description: ${path} · ${e.id.slice(0, 8)}`;
}

const shortAddress = (a: string) => (a.length > 16 ? `${a.slice(0, 8)}…${a.slice(-4)}` : a);
const usd = (pips: number) => `${fromPips(pips)} USD`;

/** The surplus of an overfunded order (what is above its amount goes back), or null. */
export function surplusView(o: Order, engine: Engine): { surplusUsd: number; says: string } | null {
	const excess = o.internal.returns.filter((r) => r.kind === 'excess');
	if (excess.length === 0) return null;
	const pips = excess.reduce((s, r) => s + toPips(r.amountUsd), 0);
	const where = excess.map((r) => {
		if (r.state === 'RETURNED') return `was returned to ${shortAddress(r.destination!.address)}`;
		if (r.state === 'RETURNING') return `is being returned to ${shortAddress(r.destination!.address)}`;
		const route = engine.route(o, r.chain);
		if (route.status === 'ROUTED') return `is about to go back to ${shortAddress(route.destination!.address)}`;
		return route.reason === 'RETURN_DETAILS_INCOMPATIBLE'
			? `waits: the order's return details have no wallet on ${r.chain} (Payment Order → Set Return Details)`
			: `waits for a return wallet on ${r.chain}: the sender has no active default return wallet there and the order has no return details (Payment Order → Set Return Details)`;
	});
	return { surplusUsd: fromPips(pips), says: `overfunded by ${usd(pips)}: the surplus ${where.join('; ')}` };
}

/** Where an order stands in the netting: which window takes it, or why it waits. */
export function nettingView(o: Order, openEpoch: number): string {
	const cancelling = !!o.cancelRequestedAt && (o.status === 'AWAITING_FUNDS' || o.status === 'FUNDED');
	if (cancelling) return 'cancel requested: no window takes it';
	switch (o.status) {
		case 'FUNDED':
			return o.mode === 'instant'
				? 'instant: delivered from prefunded liquidity within seconds, without a netting window'
				: `funded: delivered when netting window ${openEpoch} closes`;
		case 'AWAITING_FUNDS': {
			const moving = o.inboundTransfers.filter((t) => IN_FLIGHT.has(t.status));
			if (moving.length > 0) {
				return (
					`not funded yet: its deposit is ${[...new Set(moving.map((t) => t.status))].join(' and ')} (seen on chain, not yet swept into clearing). ` +
					`A window takes only the orders FUNDED when it closes, so if window ${openEpoch} closes before the sweep, this order waits for window ${openEpoch + 1}`
				);
			}
			if (o.receivedTotal > 0) return `partly funded (${o.receivedTotal} of ${o.amountUsd} USD): it joins the window open when the rest arrives`;
			return 'awaiting funds: it joins the window open when it is funded';
		}
		case 'DISTRIBUTION_FAILED':
			return `distribution failed: retried when netting window ${openEpoch} closes`;
		case 'DISTRIBUTED':
			return o.internal.nettedInEpoch !== undefined ? `delivered at the close of netting window ${o.internal.nettedInEpoch}` : 'delivered';
		default:
			return '';
	}
}

const nameOf = (o: Order | undefined, id: string) => o?.memo || id.slice(0, 8);
function names(orders: Array<Order | undefined>, ids: string[]): string {
	const all = ids.map((id, i) => nameOf(orders[i], id));
	return all.length > 10 ? `${all.slice(0, 10).join(', ')} and ${all.length - 10} more` : all.join(', ');
}
const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A netting close in a sentence, with the orders that missed it because their deposit was still being swept. */
export function nettingSays(
	result: { epochId: number; distributedIds: string[]; failedIds: string[] },
	find: (id: string) => Order | undefined,
	waiting: Order[],
): string {
	const parts: string[] = [];
	const { epochId, distributedIds, failedIds } = result;
	if (distributedIds.length === 0 && failedIds.length === 0) parts.push(`Netting window ${epochId} closed with no funded orders.`);
	else {
		const done = distributedIds.length ? `${count(distributedIds.length, 'order')} delivered (${names(distributedIds.map(find), distributedIds)})` : '';
		const failed = failedIds.length
			? `${count(failedIds.length, 'distribution')} failed (${names(failedIds.map(find), failedIds)}), retried at the next close`
			: '';
		parts.push(`Netting window ${epochId} closed: ${[done, failed].filter(Boolean).join('; ')}.`);
	}
	if (waiting.length > 0) {
		parts.push(
			`${count(waiting.length, 'order')} funded too late for it (deposit still being swept) ${waiting.length === 1 ? 'waits' : 'wait'} for window ${epochId + 1}: ${names(
				waiting,
				waiting.map((o) => o.id),
			)}.`,
		);
	}
	parts.push(`Window ${epochId + 1} is open.`);
	return parts.join(' ');
}
