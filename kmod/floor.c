// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock floors (RDMALOCK_IOC_FLOOR): the latency of the fabric's single
 * steps, taken the way the locks take them, so that a benchmark can give
 * each lock's latency as a multiple of what it cannot beat: an RDMA
 * compare-and-swap to a peer, the same to this node through its loopback,
 * a message to a peer and its answer, and a CPU compare-and-swap.
 *
 * Each sample is timed alone, one after the other, and the samples of a
 * floor are sorted for its percentiles: exact, where the torture's
 * histogram would round them. Every node answers its peers' pings from
 * its message handler, registered as each domain's fabric is created.
 */
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/timekeeping.h>

#include "cluster.h"
#include "rdmalock-pri.h"

/*
 * The echo's message type: the last one, away from the lock layer's,
 * which are taken upwards from RDMALOCK_MSG_USER_FIRST. Should they ever
 * meet, the handler set second is refused (-EBUSY); the echo's refusal
 * fails the domain's creation.
 */
#define RDMALOCK_MSG_FLOOR		(RDMALOCK_MSG_TYPES - 1)
/*
 * The word of the CAS floors: the fabric's last test word. The CAS
 * swaps 0 for 0, which leaves any value there as it was.
 */
#define RDMALOCK_FLOOR_WORD		((RDMALOCK_FABRIC_TEST_WORDS - 1) * sizeof(u64))
/* cmpxchg()s timed as one CPU_CAS sample: one alone is below the clock's cost. */
#define RDMALOCK_FLOOR_CPU_BATCH	64
/* A peer that has not answered a ping by then is not answering. */
#define RDMALOCK_FLOOR_ECHO_TIMEOUT	(5 * HZ)

/**
 * struct rdmalock_floor_msg - a ping, or its answer
 * @answer: 0 for a ping, 1 for its answer
 * @pad: zero
 * @seq: the pinging node's sequence number, sent back as it came: only
 *	that node reads it, so it has no byte order on the wire
 */
struct rdmalock_floor_msg {
	u8 answer;
	u8 pad[7];
	u64 seq;
};

/* The message handler: answers a ping, or wakes the measurement waiting for its answer. */
static void rdmalock_floor_msg_fn(struct rdmalock_fabric *fabric, u32 node,
				  u8 type, const void *payload, u32 len, void *ctx)
{
	struct rdmalock_floor_echo *echo = ctx;
	struct rdmalock_floor_msg msg;

	if (len != sizeof(msg))
		return;
	memcpy(&msg, payload, sizeof(msg));
	if (!msg.answer) {
		msg.answer = 1;
		/* An answer that cannot be sent times the pinger out. */
		rdmalock_fabric_send(fabric, node, RDMALOCK_MSG_FLOOR, &msg,
				     sizeof(msg));
		return;
	}
	atomic64_set(&echo->answered, msg.seq);
	wake_up(&echo->wq);
}

/**
 * rdmalock_floor_echo_init() - initialize a domain's echo
 * @echo: the echo, in the domain
 *
 * Context: any.
 */
void rdmalock_floor_echo_init(struct rdmalock_floor_echo *echo)
{
	mutex_init(&echo->lock);
	echo->sent = 0;
	atomic64_set(&echo->answered, 0);
	init_waitqueue_head(&echo->wq);
}

/**
 * rdmalock_floor_echo_attach() - answer peers' pings on a fabric
 * @fabric: the domain's fabric, just created
 * @echo: the domain's echo, which must outlive @fabric
 *
 * Context: any.
 * Return: 0, or -EBUSY when something else took the echo's message type.
 */
int rdmalock_floor_echo_attach(struct rdmalock_fabric *fabric,
			       struct rdmalock_floor_echo *echo)
{
	return rdmalock_fabric_set_handler(fabric, RDMALOCK_MSG_FLOOR,
					   rdmalock_floor_msg_fn, echo);
}

static int rdmalock_floor_cas(struct rdmalock_fabric *fabric, u32 node, u64 *ns)
{
	u64 start = ktime_get_ns(), old;
	int ret;

	ret = rdmalock_fabric_cas(fabric, node, RDMALOCK_FLOOR_WORD, 0, 0, &old);
	*ns = ktime_get_ns() - start;
	return ret;
}

/* Under the echo's lock. */
static int rdmalock_floor_ping(struct rdmalock_domain *dom, u32 peer, u64 *ns)
{
	struct rdmalock_floor_echo *echo = &dom->echo;
	struct rdmalock_floor_msg msg = { .seq = ++echo->sent };
	u64 start = ktime_get_ns();
	long left;
	int ret;

	ret = rdmalock_fabric_send(dom->fabric, peer, RDMALOCK_MSG_FLOOR, &msg,
				   sizeof(msg));
	if (ret)
		return ret;
	/* An answer to an earlier ping, which timed out, is not this one's. */
	left = wait_event_killable_timeout(echo->wq,
					   atomic64_read(&echo->answered) == msg.seq,
					   RDMALOCK_FLOOR_ECHO_TIMEOUT);
	*ns = ktime_get_ns() - start;
	if (left < 0)
		return -EINTR;
	return left ? 0 : -ETIMEDOUT;
}

/* Successful CASes, each on the value the previous one left, as a lock's would be. */
static void rdmalock_floor_cpu(u64 *ns)
{
	u64 word = 0, seen = 0, start = ktime_get_ns();
	u32 i;

	for (i = 0; i < RDMALOCK_FLOOR_CPU_BATCH; i++)
		seen = cmpxchg64(&word, seen, seen + 1) + 1;
	*ns = (ktime_get_ns() - start) / RDMALOCK_FLOOR_CPU_BATCH;
}

static int rdmalock_floor_sample(struct rdmalock_domain *dom, u32 peer,
				 u32 kind, u64 *ns)
{
	switch (kind) {
	case RDMALOCK_FLOOR_REMOTE_CAS:
		return rdmalock_floor_cas(dom->fabric, peer, ns);
	case RDMALOCK_FLOOR_LOOPBACK_CAS:
		return rdmalock_floor_cas(dom->fabric, dom->attr.node_id, ns);
	case RDMALOCK_FLOOR_MESSAGE:
		return rdmalock_floor_ping(dom, peer, ns);
	default:
		rdmalock_floor_cpu(ns);
		return 0;
	}
}

static int rdmalock_floor_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* The smallest of the @n sorted @ns that at least @permille of them are at or below. */
static u64 rdmalock_floor_percentile(const u64 *ns, u32 n, u32 permille)
{
	return ns[DIV_ROUND_UP_ULL((u64)n * permille, 1000) - 1];
}

/* Takes one floor's samples into @ns, and its results into @req. */
static int rdmalock_floor_kind(struct rdmalock_domain *dom,
			       struct rdmalock_floor *req, u32 kind, u64 *ns)
{
	u32 i;
	int ret;

	for (i = 0; i < req->samples; i++) {
		ret = rdmalock_floor_sample(dom, req->peer, kind, &ns[i]);
		if (ret)
			return ret;
		if (fatal_signal_pending(current))
			return -EINTR;
		if (rdmalock_domain_closed(dom))
			return -ESHUTDOWN;
		cond_resched();
	}
	sort(ns, req->samples, sizeof(*ns), rdmalock_floor_cmp, NULL);
	req->p50_ns[kind] = rdmalock_floor_percentile(ns, req->samples, 500);
	req->p99_ns[kind] = rdmalock_floor_percentile(ns, req->samples, 990);
	req->done[kind] = i;
	return 0;
}

static int rdmalock_floor_measure(struct rdmalock_domain *dom,
				  struct rdmalock_floor *req)
{
	u32 kind;
	u64 *ns;
	int ret;

	if (req->peer >= dom->attr.num_nodes || req->peer == dom->attr.node_id)
		return -EINVAL;
	ns = kvmalloc_array(req->samples, sizeof(*ns), GFP_KERNEL);
	if (!ns)
		return -ENOMEM;
	ret = mutex_lock_killable(&dom->echo.lock);
	if (ret)
		goto out;
	for (kind = 0; !ret && kind < RDMALOCK_FLOOR_KINDS; kind++)
		ret = rdmalock_floor_kind(dom, req, kind, ns);
	mutex_unlock(&dom->echo.lock);
out:
	kvfree(ns);
	return ret;
}

/**
 * rdmalock_floor() - RDMALOCK_IOC_FLOOR: measure a domain's floors
 * @req: the request; results are written into it
 *
 * Context: process context; sleeps. Takes the domain's echo mutex.
 * Return: 0, -EINVAL, -ENOENT, -ENOMEM, -EINTR, -ESHUTDOWN (the domain is
 * being destroyed), -ETIMEDOUT (the peer does not answer), or a verb's
 * error (-ENOTCONN, ...).
 */
int rdmalock_floor(struct rdmalock_floor *req)
{
	struct rdmalock_domain *dom;
	int ret;

	if (req->flags || memchr_inv(req->reserved, 0, sizeof(req->reserved)) ||
	    !req->samples || req->samples > RDMALOCK_FLOOR_MAX_SAMPLES)
		return -EINVAL;
	dom = rdmalock_domain_get(req->name);
	if (!dom)
		return -ENOENT;
	ret = rdmalock_domain_enter(dom);
	if (!ret) {
		ret = rdmalock_floor_measure(dom, req);
		rdmalock_domain_leave(dom);
	}
	rdmalock_domain_put(dom);
	return ret;
}
