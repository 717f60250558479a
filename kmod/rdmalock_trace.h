/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdmalock tracepoints, for trace-cmd and perf ("rdmalock:*"): view
 * changes and what they do to the locks, and the steps of every
 * acquisition and release.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rdmalock

#if !defined(RDMALOCK_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define RDMALOCK_TRACE_H

#include <linux/tracepoint.h>
#include <linux/rdmalock.h>

#include "locks.h"
#include "membership.h"

/* The enums' values, so that trace-cmd and perf can print their names. */
TRACE_DEFINE_ENUM(MB_PREPARE);
TRACE_DEFINE_ENUM(MB_RESET);
TRACE_DEFINE_ENUM(MB_CLAIM);
TRACE_DEFINE_ENUM(MB_COMMIT);
TRACE_DEFINE_ENUM(RDMALOCK_STEP_ASK);
TRACE_DEFINE_ENUM(RDMALOCK_STEP_QUEUED);
TRACE_DEFINE_ENUM(RDMALOCK_STEP_LINKED);
TRACE_DEFINE_ENUM(RDMALOCK_STEP_GRANTED);
TRACE_DEFINE_ENUM(RDMALOCK_STEP_WOKEN);
TRACE_DEFINE_ENUM(RDMALOCK_STEP_HELD);
TRACE_DEFINE_ENUM(RDMALOCK_STEP_RELEASE);
TRACE_DEFINE_ENUM(RDMALOCK_STEP_HANDOVER);
TRACE_DEFINE_ENUM(RDMALOCK_STEP_RELEASED);

/* A domain's name is copied whole: __string()'s helpers differ by kernel. */
DECLARE_EVENT_CLASS(rdmalock_view_class,
		    TP_PROTO(const char *domain, u64 epoch, u32 coord, u32 members),
		    TP_ARGS(domain, epoch, coord, members),
		    TP_STRUCT__entry(__array(char, domain, RDMALOCK_NAME_MAX)
				     __field(u64, epoch)
				     __field(u32, coord)
				     __field(u32, members)),
		    TP_fast_assign(strscpy(__entry->domain, domain, RDMALOCK_NAME_MAX);
				   __entry->epoch = epoch;
				   __entry->coord = coord;
				   __entry->members = members;),
		    TP_printk("domain=%s epoch=%llu coordinator=%u members=%#x",
			      __entry->domain, __entry->epoch, __entry->coord,
			      __entry->members)
);

/* The coordinator proposes a view. */
DEFINE_EVENT(rdmalock_view_class, rdmalock_view_propose,
	     TP_PROTO(const char *domain, u64 epoch, u32 coord, u32 members),
	     TP_ARGS(domain, epoch, coord, members));

/* A member commits a view and opens its gate. */
DEFINE_EVENT(rdmalock_view_class, rdmalock_view_commit,
	     TP_PROTO(const char *domain, u64 epoch, u32 coord, u32 members),
	     TP_ARGS(domain, epoch, coord, members));

/* A member lost its node lease and fenced itself, in the view it had. */
DEFINE_EVENT(rdmalock_view_class, rdmalock_fence,
	     TP_PROTO(const char *domain, u64 epoch, u32 coord, u32 members),
	     TP_ARGS(domain, epoch, coord, members));

/* A member has done its part of a phase of a proposal. */
TRACE_EVENT(rdmalock_view_phase,
	    TP_PROTO(const char *domain, u64 epoch, u32 coord, unsigned int phase),
	    TP_ARGS(domain, epoch, coord, phase),
	    TP_STRUCT__entry(__array(char, domain, RDMALOCK_NAME_MAX)
			     __field(u64, epoch)
			     __field(u32, coord)
			     __field(unsigned int, phase)),
	    TP_fast_assign(strscpy(__entry->domain, domain, RDMALOCK_NAME_MAX);
			   __entry->epoch = epoch;
			   __entry->coord = coord;
			   __entry->phase = phase;),
	    TP_printk("domain=%s epoch=%llu coordinator=%u phase=%s",
		      __entry->domain, __entry->epoch, __entry->coord,
		      __print_symbolic(__entry->phase, { MB_PREPARE, "prepare" },
				       { MB_RESET, "reset" }, { MB_CLAIM, "claim" },
				       { MB_COMMIT, "commit" }))
);

/*
 * A step of an acquisition or its release (enum rdmalock_step). An
 * acquisition is its descriptor and generation: the steps of one carry
 * the same pair, whichever task or softirq marks them.
 */
TRACE_EVENT(rdmalock_lock_step,
	    TP_PROTO(const struct rdmalock_lockspace *ls,
		     const struct rdmalock_waiter *w, unsigned int step),
	    TP_ARGS(ls, w, step),
	    TP_STRUCT__entry(__array(char, domain, RDMALOCK_NAME_MAX)
			     __field(u64, slot_off)
			     __field(u32, desc)
			     __field(u32, gen)
			     __field(u32, home)
			     __field(unsigned int, mode)
			     __field(unsigned int, step)),
	    TP_fast_assign(strscpy(__entry->domain, ls->name, RDMALOCK_NAME_MAX);
			   __entry->slot_off = w->slot_off;
			   __entry->desc = w->idx;
			   __entry->gen = w->gen;
			   __entry->home = w->home;
			   __entry->mode = w->mode;
			   __entry->step = step;),
	    TP_printk("domain=%s desc=%u gen=%u home=%u slot=%#llx mode=%s step=%s",
		      __entry->domain, __entry->desc, __entry->gen, __entry->home,
		      __entry->slot_off,
		      __print_symbolic(__entry->mode, { RDMALOCK_MODE_EX, "ex" },
				       { RDMALOCK_MODE_SH, "sh" }),
		      __print_symbolic(__entry->step,
				       { RDMALOCK_STEP_ASK, "ask" },
				       { RDMALOCK_STEP_QUEUED, "queued" },
				       { RDMALOCK_STEP_LINKED, "linked" },
				       { RDMALOCK_STEP_GRANTED, "granted" },
				       { RDMALOCK_STEP_WOKEN, "woken" },
				       { RDMALOCK_STEP_HELD, "held" },
				       { RDMALOCK_STEP_RELEASE, "release" },
				       { RDMALOCK_STEP_HANDOVER, "handover" },
				       { RDMALOCK_STEP_RELEASED, "released" }))
);

#endif /* RDMALOCK_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE rdmalock_trace
#include <trace/define_trace.h>
