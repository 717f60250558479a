// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the tables of emulated atomics waiting for their answers
 * (kmod/fabric-rmw.c), on a fabric of two nodes that is never started:
 * node 1 has an old connection, failed and replaced, and a current one.
 * Failing a connection queues its teardown, which would need a real QP;
 * the fabric's workqueue is ordered and kept busy until the test has
 * cancelled every teardown queued, so none runs.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/workqueue.h>

#include "fabric-pri.h"

#define PEER	1

struct rmw_test {
	struct rdmalock_fabric *fabric;
	struct rdmalock_conn *old;	/* replaced, failed, not torn down yet */
	struct rdmalock_conn *cur;	/* the node's current connection */
	struct work_struct busy;
	struct completion unblock;
};

struct test_rmw {
	struct rdmalock_fabric_op op;
	struct rdmalock_verb_counters cnt;
	u64 old;
	int calls;
	int status;
};

static void test_rmw_done(struct rdmalock_fabric_op *op)
{
	struct test_rmw *r = container_of(op, struct test_rmw, op);

	r->calls++;
	r->status = op->status;
}

static void never_runs(struct work_struct *work)
{
}

static void keep_busy(struct work_struct *work)
{
	wait_for_completion(&container_of(work, struct rmw_test, busy)->unblock);
}

static struct rdmalock_conn *test_conn(struct kunit *test,
				       struct rdmalock_fabric *fabric,
				       enum rdmalock_conn_state state)
{
	struct rdmalock_conn *conn;

	conn = kunit_kzalloc(test, sizeof(*conn), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, conn);
	kref_init(&conn->ref);
	conn->fabric = fabric;
	conn->peer = &fabric->peers[PEER];
	conn->state = state;
	spin_lock_init(&conn->post_lock);
	init_completion(&conn->up);
	INIT_WORK(&conn->teardown_work, never_runs);
	rdmalock_rmw_conn_init(conn);
	return conn;
}

static int rmw_test_init(struct kunit *test)
{
	struct rdmalock_fabric *fabric;
	struct rmw_test *t;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	fabric = kunit_kzalloc(test, sizeof(*fabric), GFP_KERNEL);
	if (!t || !fabric)
		return -ENOMEM;
	spin_lock_init(&fabric->lock);
	strscpy(fabric->attr.name, "test-domain", sizeof(fabric->attr.name));
	fabric->attr.num_nodes = 2;
	fabric->peers[PEER].fabric = fabric;
	fabric->peers[PEER].node = PEER;
	t->fabric = fabric;
	t->old = test_conn(test, fabric, RDMALOCK_CONN_FAILED);
	t->cur = test_conn(test, fabric, RDMALOCK_CONN_READY);
	fabric->peers[PEER].conn = t->cur;
	fabric->wq = alloc_ordered_workqueue("rdmalock-rmw-test", 0);
	if (!fabric->wq)
		return -ENOMEM;
	init_completion(&t->unblock);
	INIT_WORK(&t->busy, keep_busy);
	queue_work(fabric->wq, &t->busy);
	test->priv = t;
	return 0;
}

static void rmw_test_exit(struct kunit *test)
{
	struct rmw_test *t = test->priv;

	cancel_work_sync(&t->old->teardown_work);
	cancel_work_sync(&t->cur->teardown_work);
	complete(&t->unblock);
	destroy_workqueue(t->fabric->wq);
	xa_destroy(&t->old->rmw_pending);
	xa_destroy(&t->cur->rmw_pending);
}

/* Puts @r in @conn's table as a request sent there; returns its id. */
static u32 send_rmw(struct kunit *test, struct rdmalock_conn *conn,
		    struct test_rmw *r)
{
	u32 id;

	r->op.done = test_rmw_done;
	r->op.buf = &r->old;
	r->op.cnt = &r->cnt;
	KUNIT_ASSERT_EQ(test, rdmalock_rmw_add(conn, &r->op, &id), 0);
	return id;
}

static int answer(struct rdmalock_conn *conn, u32 id, s32 status, u64 old)
{
	struct rdmalock_rmw_resp resp = {
		.id = cpu_to_be32(id),
		.status = cpu_to_be32((u32)status),
		.old = cpu_to_be64(old),
	};

	return rdmalock_rmw_response(conn, &resp, sizeof(resp));
}

/*
 * A request on the old connection times out after the node reconnected:
 * the request fails, and the new connection, which lost nothing, stays
 * up with its own request still waiting.
 */
static void timeout_fails_only_the_requests_connection(struct kunit *test)
{
	struct rmw_test *t = test->priv;
	struct test_rmw a = {}, b = {};
	u32 ida = send_rmw(test, t->old, &a), idb = send_rmw(test, t->cur, &b);

	rdmalock_rmw_timeout(t->old, ida);
	KUNIT_EXPECT_EQ(test, a.calls, 1);
	KUNIT_EXPECT_EQ(test, a.status, -ENOTCONN);
	KUNIT_EXPECT_EQ(test, atomic64_read(&a.cnt.failed), 1);
	KUNIT_EXPECT_EQ(test, READ_ONCE(t->cur->state), RDMALOCK_CONN_READY);
	KUNIT_EXPECT_PTR_EQ(test, READ_ONCE(t->fabric->peers[PEER].conn), t->cur);
	KUNIT_EXPECT_PTR_EQ(test, xa_load(&t->cur->rmw_pending, idb), &b.op);
	KUNIT_EXPECT_EQ(test, b.calls, 0);
}

/* A request on the current connection that times out fails it. */
static void timeout_fails_its_current_connection(struct kunit *test)
{
	struct rmw_test *t = test->priv;
	struct test_rmw a = {};
	u32 id = send_rmw(test, t->cur, &a);

	rdmalock_rmw_timeout(t->cur, id);
	KUNIT_EXPECT_EQ(test, a.calls, 1);
	KUNIT_EXPECT_EQ(test, a.status, -ENOTCONN);
	KUNIT_EXPECT_EQ(test, READ_ONCE(t->cur->state), RDMALOCK_CONN_FAILED);
	KUNIT_EXPECT_NULL(test, READ_ONCE(t->fabric->peers[PEER].conn));
}

/*
 * The answer came just before the wait ended: the request completes
 * once, with its answer, and the connection that brought it stays up.
 */
static void timeout_after_the_answer_changes_nothing(struct kunit *test)
{
	struct rmw_test *t = test->priv;
	struct test_rmw a = {};
	u32 id = send_rmw(test, t->cur, &a);

	KUNIT_EXPECT_EQ(test, answer(t->cur, id, 0, 42), 0);
	rdmalock_rmw_timeout(t->cur, id);
	KUNIT_EXPECT_EQ(test, a.calls, 1);
	KUNIT_EXPECT_EQ(test, a.status, 0);
	KUNIT_EXPECT_EQ(test, a.old, 42);
	KUNIT_EXPECT_EQ(test, READ_ONCE(t->cur->state), RDMALOCK_CONN_READY);
}

/*
 * The teardown failed a request whose answer was already on its way: the
 * answer is late, not malformed, and changes nothing.
 */
static void late_answer_after_teardown_is_dropped(struct kunit *test)
{
	struct rmw_test *t = test->priv;
	struct test_rmw a = {};
	u32 id = send_rmw(test, t->cur, &a);

	rdmalock_rmw_fail_conn(t->cur);
	KUNIT_EXPECT_EQ(test, answer(t->cur, id, 0, 42), 0);
	KUNIT_EXPECT_EQ(test, a.calls, 1);
	KUNIT_EXPECT_EQ(test, a.status, -ENOTCONN);
	KUNIT_EXPECT_EQ(test, a.old, 0);
}

/* Its wait timed out just before the answer came: likewise. */
static void late_answer_after_timeout_is_dropped(struct kunit *test)
{
	struct rmw_test *t = test->priv;
	struct test_rmw a = {};
	u32 id = send_rmw(test, t->cur, &a);

	rdmalock_rmw_timeout(t->cur, id);
	KUNIT_EXPECT_EQ(test, answer(t->cur, id, 0, 42), 0);
	KUNIT_EXPECT_EQ(test, a.calls, 1);
	KUNIT_EXPECT_EQ(test, a.status, -ENOTCONN);
}

/* Still a protocol error: a late answer with a status no atomic has. */
static void late_answer_with_bad_status_is_malformed(struct kunit *test)
{
	struct rmw_test *t = test->priv;
	struct test_rmw a = {};
	u32 id = send_rmw(test, t->cur, &a);

	rdmalock_rmw_fail_conn(t->cur);
	KUNIT_EXPECT_EQ(test, answer(t->cur, id, -EINVAL, 0), -EBADMSG);
	KUNIT_EXPECT_EQ(test, a.calls, 1);
}

/* An answer to an id this connection never issued is malformed. */
static void answer_to_unissued_id_is_malformed(struct kunit *test)
{
	struct rmw_test *t = test->priv;
	struct test_rmw a = {};
	u32 id;

	KUNIT_EXPECT_EQ(test, answer(t->cur, 0, 0, 0), -EBADMSG);
	id = send_rmw(test, t->cur, &a);
	KUNIT_EXPECT_EQ(test, answer(t->cur, id + 1, 0, 0), -EBADMSG);
	KUNIT_EXPECT_EQ(test, answer(t->cur, 0xdeadbeef, 0, 0), -EBADMSG);
	/* Another connection's ids are not this one's. */
	KUNIT_EXPECT_EQ(test, answer(t->old, id, 0, 0), -EBADMSG);
	KUNIT_EXPECT_EQ(test, a.calls, 0);
	KUNIT_EXPECT_PTR_EQ(test, xa_load(&t->cur->rmw_pending, id), &a.op);
}

/*
 * Once the ids have gone round (as after 2^32 - 1 requests), every id
 * was issued once, so an answer to one that waits no more is late.
 */
static void every_id_was_issued_once_ids_went_round(struct kunit *test)
{
	struct rmw_test *t = test->priv;
	struct test_rmw a = {}, b = {};

	t->cur->rmw_next = U32_MAX;
	KUNIT_EXPECT_EQ(test, send_rmw(test, t->cur, &a), U32_MAX);
	KUNIT_EXPECT_EQ(test, send_rmw(test, t->cur, &b), 0);
	rdmalock_rmw_fail_conn(t->cur);
	KUNIT_EXPECT_EQ(test, answer(t->cur, 12345, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, answer(t->cur, U32_MAX, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, a.calls + b.calls, 2);
}

static struct kunit_case rdmalock_rmw_cases[] = {
	KUNIT_CASE(timeout_fails_only_the_requests_connection),
	KUNIT_CASE(timeout_fails_its_current_connection),
	KUNIT_CASE(timeout_after_the_answer_changes_nothing),
	KUNIT_CASE(late_answer_after_teardown_is_dropped),
	KUNIT_CASE(late_answer_after_timeout_is_dropped),
	KUNIT_CASE(late_answer_with_bad_status_is_malformed),
	KUNIT_CASE(answer_to_unissued_id_is_malformed),
	KUNIT_CASE(every_id_was_issued_once_ids_went_round),
	{}
};

static struct kunit_suite rdmalock_rmw_suite = {
	.name = "rdmalock_rmw",
	.init = rmw_test_init,
	.exit = rmw_test_exit,
	.test_cases = rdmalock_rmw_cases,
};

kunit_test_suite(rdmalock_rmw_suite);
