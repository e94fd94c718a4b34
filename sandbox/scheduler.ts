/**
 * Sandbox clock and deferred work. The clock is real time plus an offset the operator can advance;
 * service-chosen waits are divided by timeScale. One unref'd timer serves every task, so jest exits.
 */
interface Task {
	due: number;
	seq: number;
	fn: () => void;
}
const before = (a: Task, b: Task): boolean => a.due < b.due || (a.due === b.due && a.seq < b.seq);

export class Scheduler {
	private tasks: Task[] = [];
	private timer: NodeJS.Timeout | null = null;
	private seq = 0;
	private closed = false;
	offsetMs = 0;

	constructor(
		public timeScale: number,
		private onError: (e: unknown) => void,
	) {}

	now(): number {
		return Date.now() + this.offsetMs;
	}
	iso(ms = this.now()): string {
		return new Date(ms).toISOString();
	}
	/** Due time (sandbox ms) for a wait of `specMs` as the real service would take it. */
	dueIn(specMs: number): number {
		return this.now() + specMs / this.timeScale;
	}
	/** Runs fn after a service wait of specMs (compressed by timeScale). */
	after(specMs: number, fn: () => void): void {
		this.at(this.dueIn(specMs), fn);
	}
	at(due: number, fn: () => void): void {
		if (this.closed) return;
		this.push({ due, seq: this.seq++, fn });
		this.arm();
	}

	/** Moves the clock forward, running due tasks in due order (chains of waits complete inside the window). */
	advance(seconds: number): number {
		const target = this.now() + seconds * 1000;
		let ran = 0;
		for (;;) {
			const next = this.earliest();
			if (!next || next.due > target) break;
			if (next.due > this.now()) this.offsetMs += next.due - this.now();
			this.runTask(next);
			ran++;
		}
		if (target > this.now()) this.offsetMs += target - this.now();
		this.arm();
		return ran;
	}

	runDue(): void {
		for (;;) {
			const next = this.earliest();
			if (!next || next.due > this.now()) break;
			this.runTask(next);
		}
		this.arm();
	}

	close(): void {
		this.closed = true;
		this.tasks = [];
		if (this.timer) clearTimeout(this.timer);
		this.timer = null;
	}
	clear(): void {
		this.tasks = [];
		this.arm();
	}

	// A binary min-heap on (due, seq): many orders each hold an expiry task.
	private earliest(): Task | undefined {
		return this.tasks[0];
	}
	private push(t: Task): void {
		const h = this.tasks;
		h.push(t);
		let i = h.length - 1;
		while (i > 0) {
			const p = (i - 1) >> 1;
			if (!before(h[i], h[p])) break;
			[h[i], h[p]] = [h[p], h[i]];
			i = p;
		}
	}
	private pop(): Task | undefined {
		const h = this.tasks;
		const top = h[0];
		const last = h.pop();
		if (h.length && last) {
			h[0] = last;
			let i = 0;
			for (;;) {
				const l = 2 * i + 1;
				const r = l + 1;
				let m = i;
				if (l < h.length && before(h[l], h[m])) m = l;
				if (r < h.length && before(h[r], h[m])) m = r;
				if (m === i) break;
				[h[i], h[m]] = [h[m], h[i]];
				i = m;
			}
		}
		return top;
	}
	private runTask(t: Task): void {
		if (this.tasks[0] === t) this.pop();
		try {
			t.fn();
		} catch (e) {
			this.onError(e);
		}
	}
	private arm(): void {
		if (this.timer) clearTimeout(this.timer);
		this.timer = null;
		if (this.closed) return;
		const next = this.earliest();
		if (!next) return;
		const delay = Math.min(Math.max(0, next.due - this.now()), 2 ** 31 - 1);
		this.timer = setTimeout(() => this.runDue(), delay);
		this.timer.unref();
	}
}
