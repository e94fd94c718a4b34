import type { IAuthenticate, Icon, ICredentialTestRequest, ICredentialType, INodeProperties } from 'n8n-workflow';

// The service has no test network: both URLs point at production unless the user
// points them at the local sandbox (`npx n8n-nodes-clearinghouse-sandbox`, or `npm start` in a clone).
export class ClearinghouseApi implements ICredentialType {
	name = 'clearinghouseApi';

	displayName = 'Clearinghouse API';

	icon: Icon = { light: 'file:clearinghouse.svg', dark: 'file:clearinghouse.dark.svg' };

	documentationUrl = 'https://github.com/clearinghouse-nodes/n8n-nodes-clearinghouse#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
			description: 'Created in the developer console; sent as the x-api-key header',
		},
		{
			displayName: 'Environment',
			name: 'environment',
			type: 'options',
			default: 'production',
			options: [
				{
					name: 'Production (Real Money)',
					value: 'production',
					description: 'The real service: https:// only (http:// only to this machine), no safeguard relaxed',
				},
				{
					name: 'Local Sandbox (No Real Money)',
					value: 'sandbox',
					description:
						"The package's local sandbox: http:// to any host (e.g. http://host.docker.internal:4010 from n8n in Docker). No write is sent until the server's answer shows it is the sandbox.",
				},
			],
			description:
				'Whether the URLs below point at the real service or at the local sandbox. Only Local Sandbox relaxes anything (Derived keys in editor runs), and only after the server proves it is the sandbox; a localhost URL alone counts as production.',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'https://api.example.com',
			description:
				'Main API origin (https://, no ? or # part). A trailing /api/v1 or slash is tolerated. http:// only for this machine, or any host with Environment → Local Sandbox, e.g. the local sandbox: http://127.0.0.1:4010.',
		},
		{
			displayName: 'Rewards URL',
			name: 'rewardsUrl',
			type: 'string',
			default: '',
			placeholder: 'https://rewards.example.com',
			description:
				'Rewards rules API origin (https://, no ? or # part), without the /api/v1 suffix. Only needed for the Reward Rule resource. http:// only for this machine, or any host with Environment → Local Sandbox, e.g. the local sandbox: http://127.0.0.1:4011.',
		},
	];

	// A function, not the generic `={{$credentials.apiKey}}` header, which n8n evaluates with its expression
	// engine on every request. Same header and value as the generic form ('' when empty).
	authenticate: IAuthenticate = async (credentials, requestOptions) => {
		const apiKey = credentials.apiKey;
		requestOptions.headers ??= {};
		requestOptions.headers['x-api-key'] = apiKey ? String(apiKey) : '';
		return requestOptions;
	};

	// Account limits need a valid key on an active account. A Base URL the transport refuses is swapped for
	// a host that cannot resolve (ENOTFOUND), so Test never sends the key in clear text to another machine.
	test: ICredentialTestRequest = {
		request: {
			baseURL:
				'={{ (/^https:\\/\\//i.test($credentials.baseUrl.trim()) || ($credentials.environment === "sandbox" && /^http:\\/\\/[^\\s/?#]/i.test($credentials.baseUrl.trim())) || /^http:\\/\\/(localhost|127\\.\\d+\\.\\d+\\.\\d+|\\[::1\\])(:\\d+)?(\\/|$)/i.test($credentials.baseUrl.trim())) && !/[?#]/.test($credentials.baseUrl) ? $credentials.baseUrl.trim().replace(/\\/+$/, "").replace(/\\/api\\/v1$/, "") : "https://base-url-must-be-https-with-no-query.invalid" }}/api/v1',
			url: '/account/limits',
			method: 'GET',
			// As the nodes' transport: a redirect would carry the x-api-key header to wherever it points.
			disableFollowRedirect: true,
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message:
						'The API key was not accepted (401). Copy it again from the developer console; for the local sandbox use the key that the sandbox prints when it starts (npx n8n-nodes-clearinghouse-sandbox, or npm start in a clone; the demo key is sk_sandbox_demo_key unless --api-key says otherwise).',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 403,
					message:
						'The API key is valid, but the account may not use the API yet (403): it must be ACTIVE with KYB APPROVED. Ask the service to finish the account review.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message:
						'Nothing answers at this Base URL (404). Enter the API origin only, for example https://api.example.com or http://127.0.0.1:4010 for the sandbox.',
				},
			},
		],
	};
}
