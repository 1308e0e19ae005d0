import { describe, expect, it } from 'vitest';
import { Metrics } from '../../src/runtime/metrics.js';
import { RateLimitedQueue } from '../../src/runtime/queue.js';

/** The value of one series in the exposition text, or undefined when it is not there. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('metrics under the names dashboards know', () => {
  it("exports controller-runtime's workqueue metrics per queue name, from the queue itself", async () => {
    const metrics = new Metrics();
    let now = 0;
    const q = new RateLimitedQueue({ now: () => now, observer: metrics.workqueue('execution') });
    metrics.followWorkInProgress(() => ({ execution: q.inProgress() }));
    q.add('a');
    q.add('a'); // already waiting: not an add
    q.add('b');
    now = 2_000;
    expect(q.get()).toBe('a');
    now = 2_500;
    expect(q.get()).toBe('b');
    now = 3_000;
    q.done('a');
    q.addRateLimited('a');
    q.addAfter('c', 10);
    const text = await metrics.registry.metrics();
    expect(sample(text, 'workqueue_adds_total{name="execution"}')).toBe(2);
    expect(sample(text, 'workqueue_retries_total{name="execution"}')).toBe(2);
    expect(sample(text, 'workqueue_queue_duration_seconds_count{name="execution"}')).toBe(2);
    expect(sample(text, 'workqueue_queue_duration_seconds_sum{name="execution"}')).toBe(4.5);
    expect(sample(text, 'workqueue_queue_duration_seconds_bucket{le="1",name="execution"}')).toBe(0);
    expect(sample(text, 'workqueue_queue_duration_seconds_bucket{le="10",name="execution"}')).toBe(2);
    expect(sample(text, 'workqueue_work_duration_seconds_count{name="execution"}')).toBe(1);
    expect(sample(text, 'workqueue_work_duration_seconds_sum{name="execution"}')).toBe(1);
    // b is still being processed, for half a second.
    expect(sample(text, 'workqueue_unfinished_work_seconds{name="execution"}')).toBe(0.5);
    expect(sample(text, 'workqueue_longest_running_processor_seconds{name="execution"}')).toBe(0.5);
  });

  it('exports leader_election_master_status and rest_client_requests_total', async () => {
    const metrics = new Metrics();
    metrics.setLeader('karmada-lite-controller', false);
    let text = await metrics.registry.metrics();
    expect(sample(text, 'leader_election_master_status{name="karmada-lite-controller"}')).toBe(0);
    metrics.setLeader('karmada-lite-controller', true);
    metrics.observeRequest(200, 'GET', '127.0.0.1:6443');
    metrics.observeRequest(200, 'GET', '127.0.0.1:6443');
    metrics.observeRequest(undefined, 'PUT', '127.0.0.1:7443');
    text = await metrics.registry.metrics();
    expect(sample(text, 'leader_election_master_status{name="karmada-lite-controller"}')).toBe(1);
    expect(sample(text, 'rest_client_requests_total{code="200",method="GET",host="127.0.0.1:6443"}')).toBe(2);
    expect(sample(text, 'rest_client_requests_total{code="<error>",method="PUT",host="127.0.0.1:7443"}')).toBe(1);
  });

  it("exports Karmada's cluster metrics from a Cluster's status, and forgets a deleted cluster", async () => {
    const metrics = new Metrics();
    metrics.recordClusterStatus({
      metadata: { name: 'member1' },
      status: {
        conditions: [{ type: 'Ready', status: 'True' }],
        nodeSummary: { totalNum: 3, readyNum: 2 },
        resourceSummary: { allocatable: { cpu: '8', memory: '16Gi', pods: '330' }, allocated: { cpu: '1500m', memory: '512Mi', pods: '12' } },
      },
    });
    metrics.recordClusterStatus({ metadata: { name: 'member2' }, status: { conditions: [{ type: 'Ready', status: 'False' }] } });
    metrics.observeClusterSync('member1', 0.25);
    let text = await metrics.registry.metrics();
    const m1 = '{member_cluster="member1"}';
    expect(sample(text, `cluster_ready_state${m1}`)).toBe(1);
    expect(sample(text, 'cluster_ready_state{member_cluster="member2"}')).toBe(0);
    expect(sample(text, `cluster_node_number${m1}`)).toBe(3);
    expect(sample(text, `cluster_ready_node_number${m1}`)).toBe(2);
    expect(sample(text, `cluster_cpu_allocatable_number${m1}`)).toBe(8);
    expect(sample(text, `cluster_memory_allocatable_bytes${m1}`)).toBe(16 * 2 ** 30);
    expect(sample(text, `cluster_pod_allocatable_number${m1}`)).toBe(330);
    expect(sample(text, `cluster_cpu_allocated_number${m1}`)).toBe(1.5);
    expect(sample(text, `cluster_memory_allocated_bytes${m1}`)).toBe(512 * 2 ** 20);
    expect(sample(text, `cluster_pod_allocated_number${m1}`)).toBe(12);
    expect(sample(text, `cluster_sync_status_duration_seconds_count${m1}`)).toBe(1);
    // No summaries: no node or resource series for that cluster.
    expect(sample(text, 'cluster_node_number{member_cluster="member2"}')).toBeUndefined();
    metrics.forgetCluster('member1');
    text = await metrics.registry.metrics();
    expect(text).not.toContain('member_cluster="member1"');
    expect(sample(text, 'cluster_ready_state{member_cluster="member2"}')).toBe(0);
  });
});
