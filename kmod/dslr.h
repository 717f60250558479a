/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdmalock: DSLR's lock word and its protocol, apart from how the word is
 * reached (dslr.c). KUnit runs the same protocol on a word in memory.
 */
#ifndef RDMALOCK_DSLR_H
#define RDMALOCK_DSLR_H

#include <linux/types.h>

/*
 * The word: four 16-bit counters (shared/specs/dslr.md §3.2). max_S and
 * max_X hand out tickets, n_S and n_X count the slots accounted for. A
 * fetch-and-add is a 64-bit add, so a field that overflows carries into
 * the next one up: no field may pass 0xffff (§3.3).
 */
#define DSLR_MS_SHIFT	0
#define DSLR_MX_SHIFT	16
#define DSLR_NS_SHIFT	32
#define DSLR_NX_SHIFT	48

static inline u16 dslr_ms(u64 v) { return v >> DSLR_MS_SHIFT; }
static inline u16 dslr_mx(u64 v) { return v >> DSLR_MX_SHIFT; }
static inline u16 dslr_ns(u64 v) { return v >> DSLR_NS_SHIFT; }
static inline u16 dslr_nx(u64 v) { return v >> DSLR_NX_SHIFT; }

static inline u64 dslr_word(u16 nx, u16 ns, u16 mx, u16 ms)
{
	return (u64)nx << DSLR_NX_SHIFT | (u64)ns << DSLR_NS_SHIFT |
	       (u64)mx << DSLR_MX_SHIFT | (u64)ms << DSLR_MS_SHIFT;
}

/* The fetch-and-add that takes a ticket, and the one that releases it. */
static inline u64 dslr_ticket_add(bool sh)
{
	return sh ? 1ULL << DSLR_MS_SHIFT : 1ULL << DSLR_MX_SHIFT;
}

static inline u64 dslr_release_add(bool sh)
{
	return sh ? 1ULL << DSLR_NS_SHIFT : 1ULL << DSLR_NX_SHIFT;
}

/*
 * COUNT_MAX: a max field that reached it freezes the word until the
 * overflow reset; the paper's is 2^15, the top half of each field being
 * room for the increments of requesters that bounce off a frozen word.
 */
#define DSLR_COUNT_MAX		32768
#define DSLR_COUNT_MAX_MIN	2

/**
 * struct rdmalock_dslr_io - how the protocol reaches one lock word
 * @faa: fetch-and-add @add; the previous value in @old
 * @cas: compare-and-swap; the previous value in @old
 * @read: the word's value, read at once
 * @pause: sleep about @us microseconds before the next look at the word:
 *	when bounced, after a frozen word, where a deadline or a signal may
 *	end the acquisition; else while a ticket waits, where nothing but
 *	the loss of the word (a view change, a closed domain) may
 * @now: a clock in nanoseconds; needed only with @stall
 * @ctx: their argument
 * @stall: with lease recovery, how long the word's (n_X, n_S) may stand
 *	still before a waiter resets it (twice the lease, §6.2), in
 *	nanoseconds; 0 where views recover the word
 *
 * Each function but @now returns 0 or the error that ends the operation.
 */
struct rdmalock_dslr_io {
	int (*faa)(void *ctx, u64 add, u64 *old);
	int (*cas)(void *ctx, u64 expected, u64 desired, u64 *old);
	int (*read)(void *ctx, u64 *val);
	int (*pause)(void *ctx, unsigned int us, bool bounced);
	u64 (*now)(void *ctx);
	void *ctx;
	u64 stall;
};

/* What the ticket's fetch-and-add found. */
enum rdmalock_dslr_ticket {
	DSLR_TICKET_FROZEN,	/* none taken: take it back, retry later */
	DSLR_TICKET_GRANTED,
	DSLR_TICKET_WAIT,
};

/* What a poll of the word says of a ticket. */
enum rdmalock_dslr_poll {
	DSLR_POLL_GRANTED,
	DSLR_POLL_WAIT,
	DSLR_POLL_SKIPPED,	/* the word moved past the ticket */
};

#if IS_ENABLED(CONFIG_KUNIT)
bool rdmalock_dslr_frozen(u64 v, u32 count_max);
bool rdmalock_dslr_drained(u64 v);
enum rdmalock_dslr_ticket rdmalock_dslr_ticket(u64 prev, bool sh, u32 count_max);
enum rdmalock_dslr_poll rdmalock_dslr_poll(u64 prev, bool sh, u64 val);
bool rdmalock_dslr_own_slot(u64 prev, bool sh, u64 released);
unsigned int rdmalock_dslr_ahead(u64 prev, u64 val);
u64 rdmalock_dslr_stall_word(u64 prev, bool sh, u64 val);
int rdmalock_dslr_take(const struct rdmalock_dslr_io *io, bool sh, u32 count_max,
		       bool try, u64 *prev);
int rdmalock_dslr_give(const struct rdmalock_dslr_io *io, bool sh, u32 count_max,
		       u64 prev);
int rdmalock_dslr_convert(const struct rdmalock_dslr_io *io, bool to_sh,
			  u32 count_max, u64 *prev);
#endif

#endif /* RDMALOCK_DSLR_H */
