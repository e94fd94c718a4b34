/**
 * A CPU profile of the running `n8n start` process over one stretch of time, through its V8
 * inspector (n8n started with NODE_OPTIONS=--inspect=127.0.0.1:<port>, see bench/main.ts
 * BENCH_CPU_PROFILE). Only the timed stretch is profiled, not n8n's start or the warm-up, which
 * `--cpu-prof` would mix in. Summarised by bench/profile.ts.
 */
import { WebSocket } from 'undici';

export interface CpuProfileNode {
	id: number;
	callFrame: { functionName: string; url: string; lineNumber: number };
	children?: number[];
}

export interface CpuProfile {
	nodes: CpuProfileNode[];
	startTime: number;
	endTime: number;
	samples: number[];
	timeDeltas: number[];
}

export class InspectorSession {
	private nextId = 1;
	private readonly pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();

	private constructor(private readonly socket: WebSocket) {
		socket.addEventListener('message', (event) => {
			const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: { message: string } };
			const waiting = message.id === undefined ? undefined : this.pending.get(message.id);
			if (!waiting) return;
			this.pending.delete(message.id!);
			if (message.error) waiting.reject(new Error(message.error.message));
			else waiting.resolve(message.result);
		});
	}

	/** Connects to the first target the inspector at 127.0.0.1:<port> lists (the n8n main process). */
	static async connect(port: number, samplingIntervalUs = 250): Promise<InspectorSession> {
		const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Array<{ webSocketDebuggerUrl: string }>;
		const socket = new WebSocket(targets[0].webSocketDebuggerUrl);
		await new Promise<void>((resolve, reject) => {
			socket.addEventListener('open', () => resolve());
			socket.addEventListener('error', () => reject(new Error(`inspector at port ${port}: connection failed`)));
		});
		const session = new InspectorSession(socket);
		await session.send('Profiler.enable');
		// 250 µs: enough samples per order (a few ms of CPU each) without slowing n8n much.
		await session.send('Profiler.setSamplingInterval', { interval: samplingIntervalUs });
		return session;
	}

	send<T = unknown>(method: string, params: Record<string, unknown> = {}): Promise<T> {
		const id = this.nextId++;
		return new Promise<T>((resolve, reject) => {
			this.pending.set(id, { resolve, reject });
			this.socket.send(JSON.stringify({ id, method, params }));
		});
	}

	async profile<T>(work: () => Promise<T>): Promise<{ result: T; profile: CpuProfile }> {
		await this.send('Profiler.start');
		const result = await work();
		const { profile } = await this.send<{ profile: CpuProfile }>('Profiler.stop');
		return { result, profile };
	}

	close(): void {
		this.socket.close();
	}
}
