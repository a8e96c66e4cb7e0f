/**
 * The channels hob speaks, by name: a job's delivery (schedules.ts) and the
 * channel actions (src/app/channels.ts) name one. Data only; it imports nothing.
 */

/** The channels hob speaks, as config and conversations name them. */
export const CHANNEL_NAMES = ["telegram", "email", "matrix"] as const;
/** One of {@linkcode CHANNEL_NAMES}. */
export type ChannelName = typeof CHANNEL_NAMES[number];
