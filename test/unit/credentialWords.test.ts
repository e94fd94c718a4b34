/** A run refused for its API key says what the credential's Test button says (shared/serviceErrors.ts CREDENTIAL_TEST_SAYS). */
import { ClearinghouseApi } from '../../credentials/ClearinghouseApi.credentials';
import type { JsonObject } from 'n8n-workflow';

import { CREDENTIAL_TEST_SAYS, describeServiceError } from '../../nodes/shared/serviceErrors';

const rules = (new ClearinghouseApi().test.rules ?? []) as Array<{ properties: { value: number; message: string } }>;
const testSays = (status: number) => rules.find((rule) => rule.properties.value === status)?.properties.message;

test.each([401, 403] as const)('the credential Test and the run say one thing of a %i', (status) => {
	expect(testSays(status)).toBe(CREDENTIAL_TEST_SAYS[status]);
});

test.each([
	['the sandbox', { error: 'unauthorized', message: 'missing or malformed x-api-key' }],
	['a service worded otherwise', { error: 'Declined by the server, status 401; reasons given: key api' }],
])('a run-time 401 from %s leads with the Test words, whatever the answer says', (_name, payload) => {
	const { message, description } = describeServiceError(401, payload, { method: 'POST', path: '/payment', body: { amountUsd: 5 } });
	expect(message.startsWith(CREDENTIAL_TEST_SAYS[401])).toBe(true);
	expect(message).toContain('press Test');
	expect(description).toContain('HTTP 401');
});

test("a 403 naming no Subaccount ID leads with the Test's words and adds the other cause; one with a Subaccount ID names it", () => {
	const payloads: JsonObject[] = [{ error: 'Declined by the server' }, { error: 'account_not_active', message: 'Account is not active' }];
	for (const payload of payloads) {
		const plain = describeServiceError(403, payload, { method: 'GET', path: '/account/limits' });
		expect(plain.message.startsWith(CREDENTIAL_TEST_SAYS[403])).toBe(true);
		expect(plain.message).toContain('belongs to another account');
	}
	// A code naming another cause keeps its own words (a paused subaccount).
	expect(describeServiceError(403, { error: 'forbidden', message: 'Subaccount is paused' }, { method: 'GET' }).message).toBe(
		'Subaccount ID: subaccount is paused',
	);
	const sub = describeServiceError(403, { error: 'Declined by the server' }, { method: 'GET', path: '/account/limits', qs: { subaccountId: 'a-sub' } });
	expect(sub.message).not.toContain(CREDENTIAL_TEST_SAYS[403]);
});
