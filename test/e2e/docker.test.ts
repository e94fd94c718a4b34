/**
 * n8n beside the sandbox as in Docker, without a container runtime: n8n runs in a network namespace
 * this test makes (harness/netns.ts), the container's stand-in; the sandbox listens on this side of the
 * namespace's veth pair, the address a container knows as host.docker.internal. n8n 2.40.7 (`n8n
 * execute` inside the namespace) pays through it with a credential whose Environment is Sandbox and
 * whose Base URL is http://<that address>:4010, as docs/sandbox.md tells Docker users to enter.
 * Needs root and iproute2 (CI runs as root); skipped with the reason otherwise.
 */
import { randomBytes } from 'node:crypto';

import { nodeItems } from '../../harness/executions';
import { createNetns, netnsUnavailable, type Netns } from '../../harness/netns';
import { N8nInstance } from '../../harness/n8nProcess';
import { sandboxCredential } from '../../harness/sandbox';
import { startSandboxStage, stopAll, type SandboxStage } from '../../harness/stage';
import { waitFor } from '../../harness/wait';
import { action, chain } from '../../harness/workflows';

jest.setTimeout(240_000);

const unavailable = netnsUnavailable();

(unavailable ? describe.skip : describe)(
	`n8n in a network namespace pays through the sandbox at the namespace's host address${unavailable ? ` (skipped: ${unavailable})` : ''}`,
	() => {
		let ns: Netns | undefined;
		let stage: SandboxStage | undefined;
		let n8n: N8nInstance | undefined;
		const run = randomBytes(4).toString('hex');

		beforeAll(async () => {
			ns = createNetns('dock');
			// The ports docs/sandbox.md names: free on this address whatever else listens on 127.0.0.1.
			stage = await startSandboxStage({ host: ns.hostAddress, port: 4010, rewardsPort: 4011, publicHosts: ['host.docker.internal'] });
			n8n = await N8nInstance.create({ commandPrefix: ns.execPrefix });
		});
		afterAll(async () => {
			await stopAll(n8n, stage?.sandbox);
			ns?.remove();
		});

		it('a payout: Payment Order → Create from n8n inside the namespace reaches the sandbox at http://<host address>:4010', async () => {
			const { sandbox, operator, alice, bobEth } = stage!;
			expect(sandbox.mainUrl).toBe(`http://${ns!.hostAddress}:4010`);
			// Environment: Local Sandbox (sandboxCredential's), the one setting that admits plain http to this address.
			const credential = sandboxCredential(sandbox, 'chDockerCred0001', 'Clearinghouse sandbox (Docker)');
			expect(credential.data).toMatchObject({ environment: 'sandbox', baseUrl: `http://${ns!.hostAddress}:4010` });
			await n8n!.importCredential(credential);
			const id = await n8n!.importWorkflow(
				chain(
					'e2eDockerPay0001',
					'e2e: payout from a container',
					[
						action(
							'Pay Bob',
							'paymentOrder',
							'create',
							{
								mode: 'standard',
								fromUserId: alice.id,
								toAddress: bobEth,
								toChain: 'ethereum',
								asset: 'USDC',
								amountUsd: '25',
								expiry: 'inMinutes',
								expiresInMinutes: 60,
								memo: `e2e docker ${run}`,
								idempotencyKeyMode: 'custom',
								idempotencyKey: `e2e-docker-${run}`,
							},
							{ executeOnce: true },
						),
					],
					{ id: credential.id, name: credential.name },
				),
			);
			const mark = await operator.mark();
			const result = await n8n!.execute(id);
			if (result.code !== 0 || !result.run)
				throw new Error(`n8n execute exited ${result.code ?? result.signal}\n${result.stdout.slice(-4000)}\n${result.stderr.slice(-2000)}`);
			const [paid] = nodeItems(result.run.data, 'Pay Bob');
			expect(paid).toMatchObject({ paymentOrderId: expect.any(String), created: true, status: 'AWAITING_FUNDS', amountUsd: 25 });

			// The sandbox got it from the namespace, addressed to its own address and port.
			const [post] = await operator.paymentPosts(mark);
			expect(post.headers.host).toBe(`${ns!.hostAddress}:4010`);
			expect(post.status).toBe(201);

			// Funded and distributed through the operator API (this machine, at the same address).
			await operator.deposit(String(paid.paymentOrderId), 25);
			const funded = await waitForStatus(String(paid.paymentOrderId), 'FUNDED');
			expect(funded.receivedTotal).toBe(25);
			await operator.call('POST', 'netting/close', {});
			expect((await operator.api('GET', `/payment-orders/${paid.paymentOrderId}`)).status).toBe('DISTRIBUTED');
		});

		async function waitForStatus(orderId: string, status: string): Promise<any> {
			return await waitFor(
				async () => {
					const order = await stage!.operator.api('GET', `/payment-orders/${orderId}`);
					return order.status === status ? order : null;
				},
				30_000,
				`order ${orderId} to be ${status}`,
			);
		}
	},
);
