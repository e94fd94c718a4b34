import { startSandbox as startInProcess, type Sandbox, type SandboxOptions } from '../sandbox/server';

/** A sandbox in this process or another (URLs without /api/v1, as the credential wants them). */
export type SandboxHandle = Omit<Sandbox, 'services' | 'hostNames'>;

/** The sandbox in this process, on free ports unless given. */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	return await startInProcess({ port: 0, rewardsPort: 0, ...options });
}

/** The credential data for a sandbox, as `n8n import:credentials` takes it: Environment → Local Sandbox (no real money). */
export function sandboxCredential(sandbox: Pick<Sandbox, 'apiKey' | 'mainUrl' | 'rewardsUrl'>, id = 'chSandboxCred001', name = 'Clearinghouse sandbox') {
	return {
		id,
		name,
		type: 'clearinghouseApi',
		data: { apiKey: sandbox.apiKey, baseUrl: sandbox.mainUrl, rewardsUrl: sandbox.rewardsUrl, environment: 'sandbox' },
	};
}
