import { EventEmitter } from 'node:events';

import { waitFor } from '../../../harness/wait';
import { forgetInFlight, isInFlight, setInFlightPollMs, trackRun, type ResponseLike } from '../../../nodes/ClearinghouseTrigger/acknowledgement';

/** The parts of an Express response the tracker reads, driven by hand. */
class FakeResponse extends EventEmitter implements ResponseLike {
	statusCode = 200;
	writableEnded = false;
	/** n8n answers: status, then end; `finish` only when the caller is still connected. */
	answer(status: number, connected = true) {
		this.statusCode = status;
		this.writableEnded = true;
		if (connected) this.emit('finish');
	}
}

/** A run of trigger `t` for the event, tracked from its delivery; `outcomes` collects what the tracker reports. */
function tracked(eventId: string): { res: FakeResponse; outcomes: boolean[] } {
	const res = new FakeResponse();
	const outcomes: boolean[] = [];
	trackRun('t', [eventId], res, (ok) => outcomes.push(ok));
	return { res, outcomes };
}

// The tracker looks at a run whose caller hung up every 50 ms here (500 ms shipped): the waits below cover several looks.
const POLL_MS = 50;
beforeAll(() => setInFlightPollMs(POLL_MS));
afterAll(() => setInFlightPollMs(500));

describe('acknowledgement when the workflow has finished: runs in flight', () => {
	beforeEach(() => forgetInFlight());

	test('an event is in flight from the delivery until n8n answers; a 2xx answer counts as success', () => {
		const { res, outcomes } = tracked('evt_1');
		expect(isInFlight('t', 'evt_1')).toBe(true);
		expect(isInFlight('other-trigger', 'evt_1')).toBe(false);
		res.answer(200);
		expect(isInFlight('t', 'evt_1')).toBe(false);
		expect(outcomes).toEqual([true]);
	});

	test('a failed run (n8n answers 500) is reported as failed, so a retry runs it again', () => {
		const { res, outcomes } = tracked('evt_2');
		res.answer(500);
		expect(outcomes).toEqual([false]);
		expect(isInFlight('t', 'evt_2')).toBe(false);
	});

	test('the caller hung up (the service timed out, even before the trigger ran): still in flight until n8n ends the response, then its status counts', async () => {
		const { res, outcomes } = tracked('evt_3');
		await new Promise((done) => setTimeout(done, 4 * POLL_MS));
		expect(isInFlight('t', 'evt_3')).toBe(true);
		expect(outcomes).toEqual([]);
		res.answer(200, false);
		await waitFor(() => outcomes.length > 0, 5_000, 'an outcome');
		expect(outcomes).toEqual([true]);
		expect(isInFlight('t', 'evt_3')).toBe(false);
	});

	test('the outcome is reported once, by finish or by the poll, whichever sees it first', async () => {
		const { res, outcomes } = tracked('evt_4');
		res.answer(204);
		await new Promise((done) => setTimeout(done, 4 * POLL_MS));
		expect(outcomes).toEqual([true]);
	});

	test('a hung-up run that fails is reported as failed (a retry runs it again)', async () => {
		const { res, outcomes } = tracked('evt_5');
		res.answer(500, false);
		await waitFor(() => outcomes.length > 0, 5_000, 'an outcome');
		expect(outcomes).toEqual([false]);
		expect(isInFlight('t', 'evt_5')).toBe(false);
	});
});
