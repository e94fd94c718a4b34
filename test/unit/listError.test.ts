/** The messages of the editor's dropdowns and From List searches when they cannot load (methods/listError.ts). */
import { NodeApiError, NodeOperationError, type INode } from 'n8n-workflow';

import { failureOf, listFailureMessage } from '../../nodes/Clearinghouse/methods/listError';

const target = { baseUrl: 'https://api.example.com', credentialName: 'Clearinghouse prod' };
const node = { id: 'n', name: 'Clearinghouse', type: 'x', typeVersion: 1, position: [0, 0], parameters: {} } as INode;

test.each([
	[
		{ status: 401, code: 'unauthorized', message: 'x' },
		/^The Clearinghouse API at https:\/\/api\.example\.com did not accept the API Key of the credential "Clearinghouse prod" \(401\)/,
	],
	[
		{ status: 403, code: 'account_not_active', message: 'x' },
		/account of the credential "Clearinghouse prod" is not active at https:\/\/api\.example\.com \(403\).*ACTIVE with KYB APPROVED/,
	],
	[
		{ status: 404, message: 'x' },
		/^Nothing at https:\/\/api\.example\.com answers as the Clearinghouse API \(404\).*Set the Base URL of the credential "Clearinghouse prod"/,
	],
	[
		{ code: 'CONNECTION_FAILED', message: 'x' },
		/^Nothing answered at https:\/\/api\.example\.com, the Base URL of the credential "Clearinghouse prod".*npm start/,
	],
	[
		{ status: 500, message: 'The Clearinghouse service failed: boom' },
		/could not load this list for the credential "Clearinghouse prod" \(500\): The Clearinghouse service failed: boom$/,
	],
	[{ message: "The credential's Base URL is empty" }, /^This list cannot load with the credential "Clearinghouse prod": The credential's Base URL is empty$/],
])('%j reads %s', (failure, expected) => {
	expect(listFailureMessage(failure, target)).toMatch(expected);
});

test('without a credential name or Base URL the message still reads', () => {
	expect(listFailureMessage({ status: 401, message: 'x' }, {})).toMatch(
		/^The Clearinghouse API did not accept the API Key of the Clearinghouse credential \(401\)/,
	);
});

test('a list loaded while the node had no credential says to choose one, or to reopen the node when one is shown', () => {
	expect(listFailureMessage({ message: 'Node does not have any credentials set' }, { noCredential: true })).toBe(
		'This list loaded while the node had no Clearinghouse credential. Choose one in Credential to connect with; ' +
			'if one is already shown there, close this node and open it again: the list then loads with it.',
	);
});

test('the status and code come from the transport error', () => {
	const api = new NodeApiError(node, { error: 'unauthorized', message: 'Invalid API key' }, { message: 'm', httpCode: '401' });
	expect(failureOf(api)).toEqual({ status: 401, code: 'unauthorized', message: 'm' });
	const lost = new NodeApiError(node, { error: 'CONNECTION_FAILED' }, { message: 'Could not connect to the Clearinghouse API' });
	expect(failureOf(lost)).toMatchObject({ status: undefined, code: 'CONNECTION_FAILED' });
	expect(failureOf(new NodeOperationError(node, 'bad'))).toEqual({ message: 'bad' });
});
