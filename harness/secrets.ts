import { openSecret } from '../nodes/shared/secretBox';

/**
 * The endpoint secret a Clearinghouse Trigger keeps sealed in its workflow's static data, opened
 * the way the node does: with its credential's API key, the workflow id and the node id. Tests use
 * it to sign deliveries; the static data alone (what an export or the editor shows) does not open.
 */
export function triggerSecret(staticData: unknown, scope: { apiKey: string; workflowId: string; nodeId: string }): string | undefined {
	const boxes = Object.values((staticData ?? {}) as Record<string, { secretBox?: unknown }>)
		.map((node) => node?.secretBox)
		.filter((box): box is string => typeof box === 'string');
	for (const box of boxes) {
		const secret = openSecret(box, scope);
		if (secret !== undefined) return secret;
	}
	return undefined;
}
