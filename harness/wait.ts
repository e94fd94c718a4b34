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
