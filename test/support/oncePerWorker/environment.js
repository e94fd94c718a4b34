/**
 * The jest environment of the unit, sandbox and node tests: jest's node environment, plus n8n's
 * packages (and the sandbox's zod and undici) loaded once per jest worker instead of once per test file.
 *
 * Why: jest gives every test file its own module registry, so each file evaluated n8n-core's ~2,000
 * modules again (about 0.7 s of CPU per file, most of `npm run test:fast`'s CPU). Here Node's own
 * `require` loads them (jest.config.js maps the package names to the files beside this one), once per
 * worker process, as n8n itself loads them once per process. Our code (nodes/, sandbox/, harness/) is
 * still loaded afresh by jest in every file, and `jest.mock('n8n-workflow', …)` still replaces what our
 * code imports (test/support/sleep.ts).
 *
 * What it costs, and how it is held:
 * - The packages' module state lasts across the files of a worker (n8n-core's instance settings, its
 *   container): no test may rely on it being fresh, and a `jest.spyOn` on their classes is restored in
 *   the test (each one is, in a `finally`).
 * - Realms: jest runs each file in its own V8 context with its own `Error`, while these packages see
 *   Node's. n8n runs in one realm, where n8n-workflow's NodeError keeps the message of an error our code
 *   threw (`error instanceof Error`). So `instanceof Error` is bridged both ways for the file's duration
 *   (test/unit/routerErrors.test.ts fails without it: the wrapped error lost its message).
 * - jest's fake timers would not reach these packages (they use Node's timers): no test uses them; a
 *   test that needs n8n-workflow's `sleep` not to wait mocks it (test/support/sleep.ts).
 */
const { TestEnvironment } = require('jest-environment-node');

const ordinaryInstanceOf = Function.prototype[Symbol.hasInstance];

/** `x instanceof A` also true for errors of B's realm (only for A itself: its subclasses keep the ordinary check). */
function acceptErrorsOf(A, B) {
	Object.defineProperty(A, Symbol.hasInstance, {
		configurable: true,
		value(x) {
			return ordinaryInstanceOf.call(this, x) || (this === A && ordinaryInstanceOf.call(B, x));
		},
	});
}

class OncePerWorkerEnvironment extends TestEnvironment {
	constructor(config, context) {
		super(config, context);
		this.global.__requireOncePerWorker = require;
		acceptErrorsOf(Error, this.global.Error);
		acceptErrorsOf(this.global.Error, Error);
	}

	async teardown() {
		delete Error[Symbol.hasInstance];
		await super.teardown();
	}
}

module.exports = OncePerWorkerEnvironment;
