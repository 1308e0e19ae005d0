/** Ids of the page's embedded parts, shared by html.ts (which writes them) and the page's script (which reads them). */
export const DETAIL_ID_PREFIX = 'fleet-detail-';
export const EVENTS_ID = 'fleet-events';
