import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { PAYMENT_ORDER_STATUSES } from '../shared/paymentOrderStatus';
import { setNewest } from '../shared/boundedMemory';

/** What the trigger remembers about one order: the last emitted event's version and status, and each deposit's highest emitted version. */
export interface OrderMark {
	/** Highest order `version` emitted. */
	v: number;
	/** Order status at that version. */
	s: string;
	/** Highest emitted `version` per deposit, keyed by transaction hash. */
	d: Record<string, number>;
}

/** The part of the memory mirrored into static data (oldest first, so re-loading keeps the order of eviction). */
export interface MemorySnapshot {
	events: string[];
	orders: Array<[string, OrderMark]>;
}

/** Bounded memory of emitted event ids and order versions (boundedMemory.ts: the oldest goes first). */
export class TriggerMemory {
	private readonly events = new Map<string, true>();
	private readonly orders = new Map<string, OrderMark>();

	constructor(
		readonly maxEvents: number,
		readonly maxOrders: number,
	) {}

	hasEvent(id: string): boolean {
		return this.events.has(id);
	}

	addEvent(id: string): void {
		setNewest(this.events, id, true, this.maxEvents);
	}

	getOrder(id: string): OrderMark | undefined {
		return this.orders.get(id);
	}

	setOrder(id: string, mark: OrderMark): void {
		setNewest(this.orders, id, mark, this.maxOrders);
	}

	/** Adds what another copy knew (static data saved by this or another process): union of ids, highest versions. */
	merge(snapshot: unknown): void {
		if (!isSnapshot(snapshot)) return;
		for (const id of snapshot.events) if (typeof id === 'string' && !this.events.has(id)) this.addEvent(id);
		for (const entry of snapshot.orders) {
			if (!Array.isArray(entry) || typeof entry[0] !== 'string' || !isMark(entry[1])) continue;
			const [id, theirs] = entry;
			const ours = this.orders.get(id);
			if (!ours) {
				this.setOrder(id, { v: theirs.v, s: theirs.s, d: { ...theirs.d } });
				continue;
			}
			// In place (the marks are this memory's own copies): most merges change nothing.
			if (theirs.v > ours.v) {
				ours.v = theirs.v;
				ours.s = theirs.s;
			}
			for (const [hash, version] of Object.entries(theirs.d)) if (version > (ours.d[hash] ?? -Infinity)) ours.d[hash] = version;
		}
	}

	/** The newest entries, at most the given counts, oldest first. */
	snapshot(maxEvents: number, maxOrders: number): MemorySnapshot {
		return {
			events: newest(this.events.keys(), this.events.size, maxEvents),
			orders: newest(this.orders.entries(), this.orders.size, maxOrders).map(([id, m]) => [id, { v: m.v, s: m.s, d: { ...m.d } }]),
		};
	}
}

/** The last `count` of `size` values, oldest first, without copying the ones before them (runs on every delivery). */
function newest<T>(values: Iterable<T>, size: number, count: number): T[] {
	const out: T[] = [];
	let skip = size - count;
	for (const value of values) if (skip-- <= 0) out.push(value);
	return out;
}

function isMark(value: unknown): value is OrderMark {
	const m = value as OrderMark;
	return (
		!!m &&
		typeof m === 'object' &&
		typeof m.v === 'number' &&
		typeof m.s === 'string' &&
		!!m.d &&
		typeof m.d === 'object' &&
		Object.values(m.d).every((v) => typeof v === 'number')
	);
}

function isSnapshot(value: unknown): value is MemorySnapshot {
	const s = value as MemorySnapshot;
	return !!s && typeof s === 'object' && Array.isArray(s.events) && Array.isArray(s.orders);
}

/** Per process: at most this many event ids and orders per trigger, and this many triggers. */
export const PROCESS_MAX_EVENTS = 5_000;
export const PROCESS_MAX_ORDERS = 5_000;
export const PROCESS_MAX_TRIGGERS = 100;
/** Mirrored into static data (kept small: n8n stores it in the workflow's database row). */
export const STATIC_MAX_EVENTS = 500;
export const STATIC_MAX_ORDERS = 500;

const memories = new Map<string, TriggerMemory>();

/** The process-wide memory of one trigger (key: workflow id, node id and mode); bounded in count. */
export function memoryFor(key: string): TriggerMemory {
	const memory = memories.get(key) ?? new TriggerMemory(PROCESS_MAX_EVENTS, PROCESS_MAX_ORDERS);
	setNewest(memories, key, memory, PROCESS_MAX_TRIGGERS);
	return memory;
}

/** For tests: forget the process memory of one trigger, as a restart of n8n would. */
export function forgetMemory(key?: string): void {
	if (key === undefined) memories.clear();
	else memories.delete(key);
}

export interface EventOptions {
	/** Known statuses to pass; empty means every known status. */
	statuses: string[];
	passUnknownStatuses: boolean;
	includeDepositEvents: boolean;
	dropStaleEvents: boolean;
	dropDuplicates: boolean;
}

export type EventKind = 'status' | 'deposit';

export type Decision =
	| { emit: true; kind: EventKind }
	| {
			emit: false;
			reason: 'duplicate' | 'stale' | 'status_not_selected' | 'unknown_status' | 'deposit_event';
			kind?: EventKind;
	  };

interface Deposit {
	hash: string;
	version: number;
}

function deposits(order: IDataObject): Deposit[] {
	const transfers = Array.isArray(order.inboundTransfers) ? (order.inboundTransfers as IDataObject[]) : [];
	return transfers
		.filter((t) => t && typeof t.transactionHash === 'string' && typeof t.version === 'number')
		.map((t) => ({ hash: t.transactionHash as string, version: t.version as number }));
}

/** Deposits in the payload whose version is above the highest emitted for that deposit (all of them for an unseen order). */
function newerDeposits(order: IDataObject, mark: OrderMark | undefined): Deposit[] {
	return deposits(order).filter((d) => !mark || d.version > (mark.d[d.hash] ?? -Infinity));
}

/**
 * A deposit-only event, else a status event. For an order emitted before: same status as last emitted and
 * a deposit newer than emitted. For an order new here: its copy as of the event (`asOfEvent`, never as read
 * now: a creation event read after a partial deposit stays the creation event) is `AWAITING_FUNDS` with
 * deposits (that status is only entered at creation, before any deposit).
 */
export function classify(order: IDataObject, mark: OrderMark | undefined, asOfEvent: IDataObject = order): EventKind {
	const status = String(order.status ?? '');
	if (mark) return status === mark.s && newerDeposits(order, mark).length > 0 ? 'deposit' : 'status';
	return asOfEvent.status === 'AWAITING_FUNDS' && deposits(asOfEvent).length > 0 ? 'deposit' : 'status';
}

/**
 * Statuses the order can enter more than once, and the order field that tells one entry from the
 * next (spec: a distribution retry gets a fresh `distributionReference`; a refunded order reopens
 * on a late deposit and is refunded again).
 */
const REENTERED_BY: Record<string, string> = { DISTRIBUTION_FAILED: 'distributionReference', REFUNDED: 'refundedAt' };

/**
 * The key of the order state an item reports, whichever event or process it came from: `<orderId>:<status>`
 * (plus the entry's reference for a re-entered status), or `<orderId>:<status>:deposits:<digest>` for a
 * deposit-only event. A step that must run once per order state claims it (docs/queue-mode.md).
 */
export function orderStateKey(order: IDataObject, kind: EventKind): string {
	const status = String(order.status ?? '');
	const base = `${String(order.id ?? '')}:${status}`;
	if (kind === 'deposit') {
		const parts = deposits(order)
			.map((d) => `${d.hash}@${d.version}`)
			.sort();
		return `${base}:deposits:${createHash('sha256').update(parts.join(',')).digest('hex').slice(0, 16)}`;
	}
	const field = REENTERED_BY[status];
	const entry = field ? order[field] : undefined;
	return typeof entry === 'string' && entry !== '' ? `${base}:${entry}` : base;
}

/** Decides about one verified `payment_order` event (`order`: confirmed or the payload; `asOfEvent`: the payload). Pure apart from reading the memory. */
export function decide(memory: TriggerMemory, eventId: string, order: IDataObject, options: EventOptions, asOfEvent: IDataObject = order): Decision {
	if (options.dropDuplicates && memory.hasEvent(eventId)) return { emit: false, reason: 'duplicate' };
	const orderId = String(order.id ?? '');
	const mark = memory.getOrder(orderId);
	const kind = classify(order, mark, asOfEvent);
	if (options.dropStaleEvents && mark) {
		const stale = kind === 'deposit' ? newerDeposits(order, mark).length === 0 : typeof order.version === 'number' && order.version <= mark.v;
		if (stale) return { emit: false, reason: 'stale', kind };
	}
	if (kind === 'deposit' && !options.includeDepositEvents) return { emit: false, reason: 'deposit_event', kind };
	const status = String(order.status ?? '');
	if ((PAYMENT_ORDER_STATUSES as readonly string[]).includes(status)) {
		if (options.statuses.length > 0 && !options.statuses.includes(status)) {
			return { emit: false, reason: 'status_not_selected', kind };
		}
	} else if (!options.passUnknownStatuses) {
		return { emit: false, reason: 'unknown_status', kind };
	}
	return { emit: true, kind };
}

/** Records an emitted event: its id, and the order's version, status and deposit versions. */
export function recordEmitted(memory: TriggerMemory, eventId: string, order: IDataObject): void {
	memory.addEvent(eventId);
	const orderId = String(order.id ?? '');
	if (orderId === '') return;
	const mark = memory.getOrder(orderId);
	const version = typeof order.version === 'number' ? order.version : -1;
	const d = { ...(mark?.d ?? {}) };
	for (const dep of deposits(order)) d[dep.hash] = Math.max(d[dep.hash] ?? -Infinity, dep.version);
	const newer = !mark || version >= mark.v;
	memory.setOrder(orderId, {
		v: newer ? version : mark.v,
		s: newer ? String(order.status ?? '') : mark.s,
		d,
	});
}
