/** The trigger's event memory and decisions, without HTTP: bounds, merge, classification. */
import type { IDataObject } from 'n8n-workflow';

import {
	classify,
	decide,
	forgetMemory,
	memoryFor,
	orderStateKey,
	PROCESS_MAX_TRIGGERS,
	recordEmitted,
	TriggerMemory,
	type EventOptions,
} from '../../../nodes/ClearinghouseTrigger/events';

const defaults: EventOptions = {
	statuses: [],
	passUnknownStatuses: true,
	includeDepositEvents: false,
	dropStaleEvents: true,
	dropDuplicates: true,
};

const order = (version: number, status: string, deposits: Array<[string, number]> = []): IDataObject => ({
	id: 'po-1',
	status,
	version,
	inboundTransfers: deposits.map(([transactionHash, v]) => ({ transactionHash, version: v, status: 'CONFIRMED' })),
});

describe('TriggerMemory', () => {
	it('keeps at most maxEvents event ids, dropping the oldest', () => {
		const memory = new TriggerMemory(3, 3);
		for (const id of ['a', 'b', 'c', 'd']) memory.addEvent(id);
		expect(['a', 'b', 'c', 'd'].map((id) => memory.hasEvent(id))).toEqual([false, true, true, true]);
	});

	it('keeps at most maxOrders orders, dropping the least recently recorded', () => {
		const memory = new TriggerMemory(10, 2);
		memory.setOrder('x', { v: 1, s: 'A', d: {} });
		memory.setOrder('y', { v: 1, s: 'A', d: {} });
		memory.setOrder('x', { v: 2, s: 'A', d: {} }); // x is now the newest
		memory.setOrder('z', { v: 1, s: 'A', d: {} });
		expect(memory.getOrder('y')).toBeUndefined();
		expect(memory.getOrder('x')?.v).toBe(2);
	});

	it('snapshots the newest entries and survives a JSON round trip (static data)', () => {
		const memory = new TriggerMemory(100, 100);
		for (let i = 0; i < 10; i++) memory.addEvent(`e${i}`);
		recordEmitted(memory, 'e-po', order(4, 'FUNDED', [['0xa', 3]]));
		const snapshot = JSON.parse(JSON.stringify(memory.snapshot(5, 5)));
		expect(snapshot.events).toEqual(['e6', 'e7', 'e8', 'e9', 'e-po']);
		const restored = new TriggerMemory(100, 100);
		restored.merge(snapshot);
		expect(restored.hasEvent('e-po')).toBe(true);
		expect(restored.hasEvent('e5')).toBe(false);
		expect(restored.getOrder('po-1')).toEqual({ v: 4, s: 'FUNDED', d: { '0xa': 3 } });
	});

	it('merges by union of ids and highest versions, and ignores malformed snapshots', () => {
		const ours = new TriggerMemory(100, 100);
		recordEmitted(ours, 'e1', order(5, 'FUNDED', [['0xa', 2]]));
		const theirs = new TriggerMemory(100, 100);
		recordEmitted(
			theirs,
			'e2',
			order(3, 'AWAITING_FUNDS', [
				['0xa', 4],
				['0xb', 1],
			]),
		);
		ours.merge(theirs.snapshot(100, 100));
		expect(ours.hasEvent('e1') && ours.hasEvent('e2')).toBe(true);
		expect(ours.getOrder('po-1')).toEqual({ v: 5, s: 'FUNDED', d: { '0xa': 4, '0xb': 1 } });
		for (const junk of [undefined, null, 'x', { events: 'no' }, { events: [1], orders: [['po-2', { v: 'x' }]] }]) {
			expect(() => ours.merge(junk)).not.toThrow();
		}
		expect(ours.getOrder('po-2')).toBeUndefined();
	});
});

describe('memoryFor', () => {
	afterEach(() => forgetMemory());

	it('returns the same memory per key and bounds the number of triggers', () => {
		const first = memoryFor('wf:node:webhook');
		expect(memoryFor('wf:node:webhook')).toBe(first);
		for (let i = 0; i < PROCESS_MAX_TRIGGERS; i++) memoryFor(`other-${i}`);
		expect(memoryFor('wf:node:webhook')).not.toBe(first);
	});
});

describe('classify', () => {
	it('an unseen order: deposit-only only when AWAITING_FUNDS already has deposits', () => {
		expect(classify(order(1, 'AWAITING_FUNDS'), undefined)).toBe('status');
		expect(classify(order(2, 'AWAITING_FUNDS', [['0xa', 1]]), undefined)).toBe('deposit');
		expect(classify(order(4, 'FUNDED', [['0xa', 3]]), undefined)).toBe('status');
	});

	it("an unseen order: decided on the event's own copy, so a creation event read after a deposit is still a status event", () => {
		const readNow = order(3, 'AWAITING_FUNDS', [['0xa', 2]]);
		expect(classify(readNow, undefined, order(1, 'AWAITING_FUNDS'))).toBe('status');
		expect(classify(readNow, undefined, order(2, 'AWAITING_FUNDS', [['0xa', 1]]))).toBe('deposit');
		// An event about a partial deposit read after the order was funded: still deposit-only.
		expect(classify(order(5, 'FUNDED', [['0xa', 4]]), undefined, order(2, 'AWAITING_FUNDS', [['0xa', 1]]))).toBe('deposit');
		const memory = new TriggerMemory(100, 100);
		expect(decide(memory, 'e1', readNow, defaults, order(1, 'AWAITING_FUNDS'))).toEqual({ emit: true, kind: 'status' });
	});

	it('a known order: deposit-only when the status is unchanged and a deposit is newer', () => {
		const mark = { v: 4, s: 'FUNDED', d: { '0xa': 3 } };
		expect(
			classify(
				order(5, 'FUNDED', [
					['0xa', 3],
					['0xb', 1],
				]),
				mark,
			),
		).toBe('deposit');
		expect(classify(order(5, 'FUNDED', [['0xa', 4]]), mark)).toBe('deposit');
		expect(classify(order(5, 'FUNDED', [['0xa', 3]]), mark)).toBe('status');
		expect(classify(order(5, 'DISTRIBUTED', [['0xa', 4]]), mark)).toBe('status');
	});
});

describe('decide', () => {
	it('drops duplicates and stale versions, records only what is emitted', () => {
		const memory = new TriggerMemory(100, 100);
		const funded = order(4, 'FUNDED', [['0xa', 3]]);
		expect(decide(memory, 'e4', funded, defaults)).toEqual({ emit: true, kind: 'status' });
		recordEmitted(memory, 'e4', funded);
		expect(decide(memory, 'e4', funded, defaults)).toEqual({ emit: false, reason: 'duplicate' });
		expect(decide(memory, 'e1', order(1, 'AWAITING_FUNDS'), defaults)).toMatchObject({ emit: false, reason: 'stale' });
		expect(decide(memory, 'e9', order(9, 'DISTRIBUTED', [['0xa', 3]]), defaults)).toEqual({ emit: true, kind: 'status' });
	});

	it('a filtered event does not raise the high-water mark', () => {
		const memory = new TriggerMemory(100, 100);
		const onlyFunded = { ...defaults, statuses: ['FUNDED'] };
		expect(decide(memory, 'e9', order(9, 'DISTRIBUTED'), onlyFunded)).toMatchObject({ reason: 'status_not_selected' });
		// Nothing recorded: a FUNDED event arriving late is still new to this workflow.
		expect(decide(memory, 'e4', order(4, 'FUNDED'), onlyFunded)).toEqual({ emit: true, kind: 'status' });
	});

	it('an event without a version is not treated as stale', () => {
		const memory = new TriggerMemory(100, 100);
		recordEmitted(memory, 'e4', order(4, 'FUNDED'));
		expect(decide(memory, 'e5', { id: 'po-1', status: 'DISTRIBUTED' }, defaults)).toEqual({ emit: true, kind: 'status' });
	});
});

describe('orderStateKey', () => {
	it('is the order and its status for a status event, whatever the version or the deposits', () => {
		expect(orderStateKey(order(4, 'FUNDED'), 'status')).toBe('po-1:FUNDED');
		expect(orderStateKey(order(7, 'FUNDED', [['0xa', 5]]), 'status')).toBe('po-1:FUNDED');
		expect(orderStateKey(order(1, 'AWAITING_FUNDS'), 'status')).toBe('po-1:AWAITING_FUNDS');
	});

	it('tells apart the entries of a status the order can enter again', () => {
		const failed = (ref: string) => ({ ...order(6, 'DISTRIBUTION_FAILED'), distributionReference: ref });
		expect(orderStateKey(failed('dist-1'), 'status')).toBe('po-1:DISTRIBUTION_FAILED:dist-1');
		expect(orderStateKey({ ...failed('dist-1'), version: 7 }, 'status')).toBe('po-1:DISTRIBUTION_FAILED:dist-1');
		expect(orderStateKey(failed('dist-2'), 'status')).toBe('po-1:DISTRIBUTION_FAILED:dist-2');
		const refunded = (at: string) => ({ ...order(9, 'REFUNDED'), refundedAt: at });
		expect(orderStateKey(refunded('2026-01-01T00:00:00Z'), 'status')).not.toBe(orderStateKey(refunded('2026-02-01T00:00:00Z'), 'status'));
		// Distributed once: its reference is not part of the key.
		expect(orderStateKey({ ...order(8, 'DISTRIBUTED'), distributionReference: 'dist-2' }, 'status')).toBe('po-1:DISTRIBUTED');
	});

	it('a deposit-only event: one key per state of the deposits, in any order of the list', () => {
		const a = orderStateKey(
			order(3, 'AWAITING_FUNDS', [
				['0xa', 2],
				['0xb', 1],
			]),
			'deposit',
		);
		expect(a).toMatch(/^po-1:AWAITING_FUNDS:deposits:[0-9a-f]{16}$/);
		expect(
			orderStateKey(
				order(4, 'AWAITING_FUNDS', [
					['0xb', 1],
					['0xa', 2],
				]),
				'deposit',
			),
		).toBe(a);
		expect(
			orderStateKey(
				order(5, 'AWAITING_FUNDS', [
					['0xa', 3],
					['0xb', 1],
				]),
				'deposit',
			),
		).not.toBe(a);
		expect(a.startsWith(orderStateKey(order(3, 'AWAITING_FUNDS'), 'status'))).toBe(true);
	});
});
