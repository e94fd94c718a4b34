/**
 * A value the tests of one file share, started before them (`beforeAll`) and stopped after them
 * (`afterAll`), declared in one line: `const env = fixture(startEnv, (e) => e.sb.close());`.
 * What it returns stands in for the value: every property read, write and method call goes to the
 * started value (methods bound to it); using it outside a test or hook of the file throws.
 */
export function fixture<T extends object>(start: () => Promise<T>, stop: (value: T) => Promise<unknown> | unknown): T {
	let value: T | undefined;
	beforeAll(async () => {
		value = await start();
	});
	afterAll(async () => {
		if (value !== undefined) await stop(value);
		value = undefined;
	});
	const started = (): T => {
		if (value === undefined) throw new Error('fixture used before its beforeAll ran (or after its afterAll)');
		return value;
	};
	return new Proxy({} as T, {
		get(_, key) {
			const target = started();
			const property = Reflect.get(target, key, target);
			return typeof property === 'function' ? property.bind(target) : property;
		},
		set: (_, key, property) => Reflect.set(started(), key, property),
		has: (_, key) => Reflect.has(started(), key),
		ownKeys: () => Reflect.ownKeys(started()),
		getOwnPropertyDescriptor(_, key) {
			const descriptor = Reflect.getOwnPropertyDescriptor(started(), key);
			// The proxy's own target is an empty extensible object: every property reported must be configurable.
			return descriptor && { ...descriptor, configurable: true };
		},
	});
}
