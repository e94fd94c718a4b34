/**
 * The process memory behind Retry On Fail (nodes/shared/firstTries.ts): the first request sent
 * with a key is the one sent again, the expiry computed on the first try included.
 */
import { firstTry } from '../../nodes/shared/firstTries';

test('firstTry keeps the first request for an id and hands it back on later tries', () => {
	expect(firstTry('exec-1|node|0|0|k', { at: 1 })).toEqual({ request: { at: 1 }, first: true });
	expect(firstTry('exec-1|node|0|0|k', { at: 2 })).toEqual({ request: { at: 1 }, first: false });
	expect(firstTry('exec-2|node|0|0|k', { at: 3 })).toEqual({ request: { at: 3 }, first: true });
});

test('a retry sends the expiresAt of the first try, not one counted anew', () => {
	const first = { amountUsd: 5, expiresAt: '2026-01-01T11:00:00.000Z' };
	firstTry('exec-3|node|0|0|k', first);
	const retry = firstTry('exec-3|node|0|0|k', { amountUsd: 5, expiresAt: '2026-01-01T11:03:00.000Z' });
	expect(retry).toEqual({ request: first, first: false });
});

test('the memory is bounded: after 10,000 newer ids the oldest is forgotten', () => {
	firstTry('bound|oldest', 'first');
	for (let n = 0; n < 10_000; n++) firstTry(`bound|${n}`, n);
	expect(firstTry('bound|9999', -1)).toEqual({ request: 9999, first: false }); // the newest: held
	expect(firstTry('bound|oldest', 'again')).toEqual({ request: 'again', first: true }); // evicted
});
