/** Secrets stay out of errors: an API error carries neither the API key nor a header dump. */
import { useEnv } from '../support';

const env = useEnv();

describe('Secrets stay out of errors', () => {
	test('an API error carries neither the API key nor a header dump', async () => {
		const error = await env.run({ resource: 'paymentOrder', operation: 'get', paymentOrderId: { mode: 'id', value: 'missing' } }).catch((e: unknown) => e);
		const text = JSON.stringify(error, Object.getOwnPropertyNames(error)) + String((error as Error).stack);
		expect(text).not.toContain(env.sb.apiKey);
	});
});
