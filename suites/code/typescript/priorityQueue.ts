export type Comparator<T> = (a: T, b: T) => number;

/**
 * Binary min-heap. With a custom comparator it becomes a max-heap or orders
 * any objects, e.g. `new PriorityQueue<Task>((a, b) => a.deadline - b.deadline)`.
 */
export class PriorityQueue<T> implements Iterable<T> {
  private readonly heap: T[] = [];

  constructor(private readonly compare: Comparator<T> = (a, b) => (a < b ? -1 : a > b ? 1 : 0)) {}

  get size(): number {
    return this.heap.length;
  }

  isEmpty(): boolean {
    return this.heap.length === 0;
  }

  peek(): T | undefined {
    return this.heap[0];
  }

  push(...values: T[]): void {
    for (const value of values) {
      this.heap.push(value);
      this.siftUp(this.heap.length - 1);
    }
  }

  pop(): T | undefined {
    const top = this.heap[0];
    const last = this.heap.pop();
    if (this.heap.length > 0 && last !== undefined) {
      this.heap[0] = last;
      this.siftDown(0);
    }
    return top;
  }

  /** Drains a copy, so iteration yields items in priority order without mutating the queue. */
  *[Symbol.iterator](): Iterator<T> {
    const copy = new PriorityQueue<T>(this.compare);
    copy.heap.push(...this.heap);
    while (!copy.isEmpty()) yield copy.pop() as T;
  }

  private siftUp(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.compare(this.heap[i], this.heap[parent]) >= 0) break;
      [this.heap[i], this.heap[parent]] = [this.heap[parent], this.heap[i]];
      i = parent;
    }
  }

  private siftDown(i: number): void {
    const n = this.heap.length;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < n && this.compare(this.heap[left], this.heap[smallest]) < 0) smallest = left;
      if (right < n && this.compare(this.heap[right], this.heap[smallest]) < 0) smallest = right;
      if (smallest === i) return;
      [this.heap[i], this.heap[smallest]] = [this.heap[smallest], this.heap[i]];
      i = smallest;
    }
  }
}

// Example: schedule jobs by deadline (ms since epoch).
interface Job {
  name: string;
  deadline: number;
}

const jobs = new PriorityQueue<Job>((a, b) => a.deadline - b.deadline);
jobs.push(
  { name: 'send-invoices', deadline: 1_767_225_600_000 },
  { name: 'rotate-logs', deadline: 1_767_139_200_000 },
  { name: 'backup-db', deadline: 1_767_182_400_000 },
);
console.log([...jobs].map((j) => j.name).join(' → '));
