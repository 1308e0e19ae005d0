/** `controller --dashboard`: the report's page, live, from this replica's caches. */
import type { AddressInfo } from 'node:net';
import { reportHtml } from '../report/html.js';
import type { FleetModel } from '../report/model.js';
import { DashboardServer } from './server.js';
import { CacheFeed } from './snapshot.js';

export interface DashboardOptions {
  port: number;
  bindAddress?: string;
  /** This replica's identity (the Lease holder identity). */
  identity: string;
  isLeader: () => boolean;
}

export interface Dashboard {
  feed: CacheFeed;
  address: AddressInfo;
  stop(): Promise<void>;
}

/** Which replica the page comes from: with leader election, every replica serves what its own caches hold. */
export function dashboardTitle(identity: string, leader: boolean, filled: boolean): string {
  const caches = filled ? '' : ' (standby: caches fill when this replica leads)';
  return `karmada-lite dashboard — replica ${identity}, leader: ${leader ? 'yes' : 'no'}${caches}`;
}

export async function startDashboard(opts: DashboardOptions): Promise<Dashboard> {
  const feed = new CacheFeed();
  const server = new DashboardServer({
    port: opts.port,
    bindAddress: opts.bindAddress,
    // The title rides in the model: the heading follows the leader flag without a reload (leading fills the caches, which pushes).
    model: (): FleetModel => ({ ...feed.model(), title: dashboardTitle(opts.identity, opts.isLeader(), feed.attached) }),
    detail: (key) => feed.detail(key),
    events: () => feed.events(),
    page: (model, live) => reportHtml({ model: model as FleetModel }, { live }),
    subscribe: (changed) => feed.subscribe(changed),
  });
  const address = await server.start();
  return {
    feed,
    address,
    stop: async () => {
      await server.stop();
      feed.stop();
    },
  };
}
