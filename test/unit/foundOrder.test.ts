/** The pure rules for an order found by its key: dead or live, how old, what funds were seen, the service's clock. */
import { clockSkew, foundOrderProblem, fundsSeen, inWords, laterNow, madeBefore, orderState } from '../../nodes/Clearinghouse/actions/paymentOrder/foundOrder';

const NOW = Date.parse('2026-06-01T12:00:00Z');

describe('orderState: dead when the spec allows the order no delivery', () => {
	test.each(['EXPIRED', 'CANCELED', 'REFUNDED', 'REMEDIATING_EXPIRED'])('%s is dead', (status) => {
		expect(orderState({ status }, NOW)).toEqual({ state: 'dead', why: `it is ${status}` });
	});
	test.each(['FUNDED', 'LOCKED', 'DISTRIBUTED', 'DISTRIBUTION_FAILED', 'REMEDIATING_OVERFUNDED'])('%s is live', (status) => {
		expect(orderState({ status }, NOW).state).toBe('live');
	});
	test('AWAITING_FUNDS is live until its window closes or its cancellation is requested', () => {
		expect(orderState({ status: 'AWAITING_FUNDS', expiresAt: '2026-06-01T12:00:01Z' }, NOW).state).toBe('live');
		expect(orderState({ status: 'AWAITING_FUNDS', expiresAt: '2026-06-01T12:00:00Z' }, NOW)).toEqual({
			state: 'dead',
			why: 'its funding window closed at 2026-06-01T12:00:00Z',
		});
		expect(orderState({ status: 'AWAITING_FUNDS', cancelRequestedAt: '2026-06-01T11:00:00Z' }, NOW).state).toBe('dead');
	});
	test('a status the node does not know is neither (fail closed: the caller must not call it paid)', () => {
		expect(orderState({ status: 'SETTLING' }, NOW)).toEqual({ state: 'unknown', why: 'its status SETTLING is not one this node knows' });
		expect(orderState({}, NOW).state).toBe('unknown');
	});
});

test('madeBefore: how long before the start, 0 after it, undefined without a date', () => {
	expect(madeBefore({ createdAt: '2026-06-01T11:00:00Z' }, NOW)).toBe(3_600_000);
	expect(madeBefore({ createdAt: '2026-06-01T13:00:00Z' }, NOW)).toBe(0);
	expect(madeBefore({ createdAt: 'yesterday' }, NOW)).toBeUndefined();
});

test('inWords: minutes, hours, days, rounded', () => {
	expect(inWords(60_000)).toBe('1 minute');
	expect(inWords(40 * 60_000)).toBe('40 minutes');
	expect(inWords(13 * 3_600_000)).toBe('13 hours');
	expect(inWords(31 * 86_400_000 - 900)).toBe('31 days');
});

test('fundsSeen: transfers still counting toward funding, or receivedTotal when larger, exactly', () => {
	expect(fundsSeen({})).toEqual({ fundsSeen: false, fundsSeenUsd: '0' });
	const transfers = [
		{ amountUsd: 0.1, status: 'PENDING_VERIFICATION' },
		{ amountUsd: 0.2, status: 'CONFIRMED' },
		{ amountUsd: 5, status: 'RETURNED' },
	];
	expect(fundsSeen({ inboundTransfers: transfers, receivedTotal: 0.2 })).toEqual({ fundsSeen: true, fundsSeenUsd: '0.3' });
	expect(fundsSeen({ receivedTotal: 7 })).toEqual({ fundsSeen: true, fundsSeenUsd: '7' });
	expect(fundsSeen({ inboundTransfers: [{ amountUsd: 'lots', status: 'CONFIRMED' }] }).fundsSeen).toBe(true);
});

test("clockSkew: the service's clock from its Date header; within the header's whole seconds, none", () => {
	expect(clockSkew('Mon, 01 Jun 2026 12:00:00 GMT', NOW + 900)).toBe(0);
	expect(clockSkew('Wed, 01 Jul 2026 12:00:00 GMT', NOW)).toBe(30 * 86_400_000);
	expect(clockSkew(undefined, NOW)).toBe(0);
	expect(clockSkew('not a date', NOW)).toBe(0);
});

test("laterNow: whichever of n8n's clock and the service's is later, so a lagging Date header never makes an order younger", () => {
	expect(laterNow(NOW, 30 * 86_400_000)).toBe(NOW + 30 * 86_400_000);
	expect(laterNow(NOW, -30 * 86_400_000)).toBe(NOW);
	expect(laterNow(NOW, 0)).toBe(NOW);
});

test('a Date header a month behind n8n: the month-old order is refused, and the description names both clocks', () => {
	const order = { id: 'po_1', status: 'AWAITING_FUNDS', createdAt: '2026-05-01T12:00:00Z' };
	const problem = foundOrderProblem(
		order,
		{ key: 'EMP-1', keyKind: 'custom', reuseWindowHours: 12, lineage: { nonce: 'n', anchorMs: NOW, executionId: '1' } },
		-31 * 86_400_000,
	);
	expect(problem?.message).toMatch(/^Business Key "EMP-1" was already used 31 days before this execution began/);
	expect(problem?.description).toMatch(/^By n8n's clock; by the service's Date header it was made 0 minutes before: the two clocks differ by 31 days\./);
	// When both clocks call it old, the description says nothing about clocks.
	expect(foundOrderProblem(order, { key: 'EMP-1', keyKind: 'custom', reuseWindowHours: 12 }, 0)?.description).toMatch(/^A key names one payment/);
});

test('an order of a status the node does not know: the advice names the key the item has (a Business Key, or Derived)', () => {
	const order = { id: 'po_1', status: 'ON_HOLD', createdAt: '2026-06-01T11:00:00Z' };
	const custom = foundOrderProblem(order, { key: 'INV-1', keyKind: 'custom', reuseWindowHours: 12 }, 0);
	expect(custom?.description).toBe('Nothing new was created. Check the order (Payment Order → Get) before paying again; a new Business Key pays anew.');
	const derived = foundOrderProblem(order, { key: 'n8n-abc', keyKind: 'derived', reuseWindowHours: 12 }, 0);
	expect(derived?.description).toBe(
		'Nothing new was created. Check the order (Payment Order → Get) before paying again; a new key pays anew: run the workflow anew for this item.',
	);
	expect(derived?.description).not.toContain('Business Key');
});
