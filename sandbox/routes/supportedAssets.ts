/** `GET /supported-assets`: the chains and tokens the service settles. */
import type { Router } from '../router';
import { SUPPORTED_ASSETS } from '../state';

export function registerSupportedAssets(r: Router): void {
	r.add('GET', '/api/v1/supported-assets', () => ({ status: 200, body: SUPPORTED_ASSETS }));
}
