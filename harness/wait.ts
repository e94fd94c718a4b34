type Falsy = undefined | null | false | 0 | '';

/**
 * Polls `check` every `intervalMs` until it returns a truthy value, and resolves with that value;
 * throws "timed out waiting for <what>" after `timeoutMs`. For conditions that come true on their
 * own (a delivery arrives, an order moves on its timers), never for a fixed wait.
 */
export async function waitFor<T>(check: () => T | Falsy | Promise<T | Falsy>, timeoutMs = 10_000, what = 'condition', intervalMs = 20): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await check();
		if (value) return value;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (${timeoutMs} ms)`);
		await new Promise((resolve) => setTimeout(resolve, intervalMs));
	}
}

/** What pollFor asks again and again: a value when the condition holds, `undefined` or `false` until then. */
export type Probe<T> = () => T | undefined | false | Promise<T | undefined | false>;

/**
 * waitFor for a condition other processes bring about (n8n runs, the sandbox delivers): named first, polled
 * every 300 ms (each probe is a request or a database read), 60 s unless told. On timeout the error also
 * carries `explain()`'s account of what was seen, when given.
 */
export async function pollFor<T>(
	what: string,
	probe: Probe<T>,
	timeoutMs = 60_000,
	options: { intervalMs?: number; explain?: () => Promise<string> } = {},
): Promise<T> {
	try {
		return await waitFor(probe, timeoutMs, what, options.intervalMs ?? 300);
	} catch (error) {
		if (options.explain && error instanceof Error && error.message.startsWith('timed out waiting for'))
			throw new Error(`${error.message}\n${await options.explain()}`);
		throw error;
	}
}
