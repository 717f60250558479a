// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock: locks held by an open file of /dev/rdmalock
 * (RDMALOCK_IOC_LOCK and _UNLOCK), released when the file is closed, and
 * their blocking events, which read(2) of the file returns.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "cluster.h"
#include "locks.h"
#include "rdmalock-pri.h"

struct rdmalock_file;

/*
 * A lock of the file; @pending while its LOCK is under way. @key is the
 * lock's name (an id's is its eight big-endian bytes), @by_name when the
 * file named it so. @lvb is the handle's LVB, with a value. With
 * RDMALOCK_LOCK_F_NOTIFY, @event is on the file's events while one is to
 * be read, for @event_mode.
 */
struct rdmalock_held {
	struct list_head entry;
	struct rdmalock_lock lk;
	struct rdmalock_lock_name key;
	bool by_name;
	bool pending;
	u8 lvb[RDMALOCK_LVB_MAX];
	struct rdmalock_file *f;
	struct list_head event;
	unsigned int event_mode;
};

/*
 * What an open file holds. The mutex is not held while a LOCK waits, so
 * that another thread can UNLOCK meanwhile; a LOCK under way is on the
 * list, pending, so that a second LOCK of the same lock finds it.
 */
struct rdmalock_file {
	struct mutex lock;		/* protects held */
	struct list_head held;
	spinlock_t events_lock;		/* protects events, helds' event fields */
	struct list_head events;
	wait_queue_head_t events_wq;
};

/**
 * rdmalock_file_open() - set up an open file's lock list
 * @file: the file
 *
 * Return: 0 or -ENOMEM.
 */
int rdmalock_file_open(struct file *file)
{
	struct rdmalock_file *f = kzalloc(sizeof(*f), GFP_KERNEL);

	if (!f)
		return -ENOMEM;
	mutex_init(&f->lock);
	INIT_LIST_HEAD(&f->held);
	spin_lock_init(&f->events_lock);
	INIT_LIST_HEAD(&f->events);
	init_waitqueue_head(&f->events_wq);
	file->private_data = f;
	return 0;
}

/* The blocking callback of a lock held with RDMALOCK_LOCK_F_NOTIFY. */
static void rdmalock_held_blocked(void *arg, unsigned int mode)
{
	struct rdmalock_held *h = arg;
	struct rdmalock_file *f = h->f;

	spin_lock(&f->events_lock);
	if (list_empty(&h->event)) {
		h->event_mode = mode;
		list_add_tail(&h->event, &f->events);
	} else if (mode == RDMALOCK_MODE_EX) {
		h->event_mode = mode;
	}
	spin_unlock(&f->events_lock);
	wake_up_interruptible(&f->events_wq);
}

/* Once torn down (no callback runs): its event, if unread, goes. */
static void rdmalock_held_teardown(struct rdmalock_held *h)
{
	struct rdmalock_file *f = h->f;

	rdmalock_lock_teardown(&h->lk);
	spin_lock(&f->events_lock);
	list_del_init(&h->event);
	spin_unlock(&f->events_lock);
}

static int rdmalock_held_free(struct rdmalock_held *h)
{
	int ret = rdmalock_unlock(&h->lk);

	rdmalock_held_teardown(h);
	rdmalock_domain_put(h->lk.dom);
	kfree(h);
	return ret;
}

/**
 * rdmalock_file_release() - release every lock an open file still holds
 * @file: the file, being closed
 */
void rdmalock_file_release(struct file *file)
{
	struct rdmalock_file *f = file->private_data;
	struct rdmalock_held *h, *tmp;

	list_for_each_entry_safe(h, tmp, &f->held, entry)
		rdmalock_held_free(h);
	mutex_destroy(&f->lock);
	kfree(f);
}

static bool rdmalock_file_has_events(struct rdmalock_file *f)
{
	bool has;

	spin_lock(&f->events_lock);
	has = !list_empty(&f->events);
	spin_unlock(&f->events_lock);
	return has;
}

/* Takes the first event to read, into @ev; false when there is none. */
static bool rdmalock_file_next_event(struct rdmalock_file *f,
				     struct rdmalock_blocking_event *ev)
{
	struct rdmalock_held *h;

	spin_lock(&f->events_lock);
	h = list_first_entry_or_null(&f->events, struct rdmalock_held, event);
	if (h) {
		list_del_init(&h->event);
		*ev = (struct rdmalock_blocking_event){
			.id = h->lk.id,
			.mode = h->event_mode,
		};
		strscpy(ev->name, h->lk.dom->attr.name, sizeof(ev->name));
		if (h->by_name)
			ev->lock_name = h->key;
	}
	spin_unlock(&f->events_lock);
	return h;
}

/**
 * rdmalock_file_read() - read(2): the blocking events of the file's locks
 * @file: the open file
 * @buf: the caller's buffer
 * @count: its size: whole &struct rdmalock_blocking_event only
 * @ppos: unused: events are a stream
 *
 * Context: process context; sleeps until an event comes, unless the file
 * is O_NONBLOCK.
 * Return: the bytes read; -EINVAL when @count is less than one event,
 * -EAGAIN when there is none and the file is O_NONBLOCK, -ERESTARTSYS at
 * a signal, -EFAULT.
 */
ssize_t rdmalock_file_read(struct file *file, char __user *buf, size_t count,
			   loff_t *ppos)
{
	struct rdmalock_file *f = file->private_data;
	struct rdmalock_blocking_event ev;
	size_t done = 0;
	int ret;

	if (count < sizeof(ev))
		return -EINVAL;
	if (!(file->f_flags & O_NONBLOCK)) {
		ret = wait_event_interruptible(f->events_wq,
					       rdmalock_file_has_events(f));
		if (ret)
			return ret;
	}
	while (count - done >= sizeof(ev) && rdmalock_file_next_event(f, &ev)) {
		if (copy_to_user(buf + done, &ev, sizeof(ev)))
			return done ?: -EFAULT;
		done += sizeof(ev);
	}
	return done ?: -EAGAIN;
}

/**
 * rdmalock_file_poll() - poll(2): readable while a blocking event is to be read
 * @file: the open file
 * @wait: the poll table
 *
 * Return: EPOLLIN | EPOLLRDNORM, or 0.
 */
__poll_t rdmalock_file_poll(struct file *file, struct poll_table_struct *wait)
{
	struct rdmalock_file *f = file->private_data;

	poll_wait(file, &f->events_wq, wait);
	return rdmalock_file_has_events(f) ? EPOLLIN | EPOLLRDNORM : 0;
}

/*
 * The lock @req names, as the file keys its locks: the name it gives, or
 * its id's eight big-endian bytes, which are the same lock in a domain
 * with named locks. Return: 0, -EFAULT or -EINVAL.
 */
static int rdmalock_req_key(const struct rdmalock_lock_req *req,
			    struct rdmalock_lock_name *key)
{
	__be64 id = cpu_to_be64(req->id);

	if (!req->lock_name) {
		*key = (struct rdmalock_lock_name){ .len = sizeof(id) };
		memcpy(key->name, &id, sizeof(id));
		return 0;
	}
	if (copy_from_user(key, u64_to_user_ptr(req->lock_name), sizeof(*key)))
		return -EFAULT;
	if (key->pad || !key->len || key->len > RDMALOCK_LOCK_NAME_MAX || req->id)
		return -EINVAL;
	return 0;
}

static bool rdmalock_held_is(const struct rdmalock_held *h,
			     const struct rdmalock_lock_name *key)
{
	return h->key.len == key->len && !memcmp(h->key.name, key->name, key->len);
}

/*
 * Under f->lock. A lock of a destroyed domain keeps its name, so that
 * UNLOCK of it reports the destruction.
 */
static struct rdmalock_held *rdmalock_file_find(struct rdmalock_file *f,
						const char *name,
						const struct rdmalock_lock_name *key)
{
	struct rdmalock_held *h;

	list_for_each_entry(h, &f->held, entry)
		if (!h->pending && rdmalock_held_is(h, key) &&
		    !strncmp(h->lk.dom->attr.name, name, RDMALOCK_NAME_MAX))
			return h;
	return NULL;
}

/* Under f->lock: held or pending, in this very domain. */
static bool rdmalock_file_has(struct rdmalock_file *f,
			      struct rdmalock_domain *dom,
			      const struct rdmalock_lock_name *key)
{
	struct rdmalock_held *h;

	list_for_each_entry(h, &f->held, entry)
		if (h->lk.dom == dom && rdmalock_held_is(h, key))
			return true;
	return false;
}

static int rdmalock_value_from_user(const struct rdmalock_lock_req *req,
				    struct rdmalock_lock_value *val)
{
	if (copy_from_user(val, u64_to_user_ptr(req->value), sizeof(*val)))
		return -EFAULT;
	return val->pad[0] || val->pad[1] ? -EINVAL : 0;
}

/* LOCK with a value: the handle's grant reads what @val asks for. */
static int rdmalock_held_want_value(struct rdmalock_held *h,
				    const struct rdmalock_lock_req *req)
{
	struct rdmalock_lock_value val;
	int ret = rdmalock_value_from_user(req, &val);

	if (ret)
		return ret;
	if (val.lvb_len > RDMALOCK_LVB_MAX)
		return -EINVAL;
	return rdmalock_lock_set_value(&h->lk, val.lvb_len ? h->lvb : NULL,
				       val.lvb_len);
}

/* The grant's value, to the caller's &struct rdmalock_lock_value. */
static int rdmalock_held_give_value(struct rdmalock_held *h,
				    const struct rdmalock_lock_req *req)
{
	struct rdmalock_lock_value val = {
		.token = rdmalock_lock_token(&h->lk),
		.flags = rdmalock_lock_lvb_valid(&h->lk) ? RDMALOCK_LVB_F_VALID : 0,
		.lvb_len = h->lk.lvb_len,
	};

	memcpy(val.lvb, h->lvb, sizeof(val.lvb));
	if (copy_to_user(u64_to_user_ptr(req->value), &val, sizeof(val)))
		return -EFAULT;
	return 0;
}

/* How a LOCK may wait: killable, and as its flags and timeout say. */
static struct rdmalock_how rdmalock_file_how(const struct rdmalock_lock_req *req)
{
	return (struct rdmalock_how){
		.try = req->flags & RDMALOCK_LOCK_F_TRY,
		.killable = true,
		.timed = req->timeout_ms,
		.deadline = jiffies + msecs_to_jiffies(req->timeout_ms),
	};
}

/*
 * The lock of the file that @req names, made this call's alone: taken off
 * the list (UNLOCK, @unlist), or marked pending (CONVERT), which UNLOCK
 * and CONVERT do not find. It gets the LVB @req's value gives. Return:
 * the lock, or ERR_PTR() of -EFAULT, -EINVAL or -ENOENT.
 */
static struct rdmalock_held *rdmalock_file_claim(struct rdmalock_file *f,
						 const struct rdmalock_lock_req *req,
						 bool unlist)
{
	struct rdmalock_lock_value val;
	struct rdmalock_lock_name key;
	struct rdmalock_held *h;
	int ret;

	ret = rdmalock_req_key(req, &key);
	if (!ret && req->value)
		ret = rdmalock_value_from_user(req, &val);
	if (ret)
		return ERR_PTR(ret);
	mutex_lock(&f->lock);
	h = rdmalock_file_find(f, req->name, &key);
	if (h && unlist)
		list_del(&h->entry);
	else if (h)
		h->pending = true;
	mutex_unlock(&f->lock);
	if (!h)
		return ERR_PTR(-ENOENT);
	if (req->value)
		memcpy(h->lvb, val.lvb, h->lk.lvb_len);
	return h;
}

/* LOCK with RDMALOCK_LOCK_F_CONVERT: a lock this file holds changes mode. */
static long rdmalock_ioc_convert(struct rdmalock_file *f,
				 const struct rdmalock_lock_req *req)
{
	struct rdmalock_how how = rdmalock_file_how(req);
	struct rdmalock_held *h = rdmalock_file_claim(f, req, false);
	int ret;

	if (IS_ERR(h))
		return PTR_ERR(h);
	ret = rdmalock_convert(&h->lk, req->mode, &how);
	if (!ret && req->value)
		ret = rdmalock_held_give_value(h, req);
	mutex_lock(&f->lock);
	h->pending = false;
	mutex_unlock(&f->lock);
	return ret;
}

/**
 * rdmalock_ioc_lock() - RDMALOCK_IOC_LOCK
 * @file: the open file that will hold the lock
 * @arg: &struct rdmalock_lock_req
 *
 * Return: 0, -EINVAL, -ENOENT (no such domain; with
 * %RDMALOCK_LOCK_F_CONVERT, no such lock held by this file), -EDEADLK
 * (held or being locked by this file; with %RDMALOCK_LOCK_F_CONVERT, a
 * conversion the algorithm cannot grant), -EFAULT or -EOPNOTSUPP for a
 * value, -EOPNOTSUPP for %RDMALOCK_LOCK_F_NOTIFY in a domain without
 * named locks, or the lock's errors.
 */
long rdmalock_ioc_lock(struct file *file, void *arg)
{
	struct rdmalock_file *f = file->private_data;
	struct rdmalock_lock_req *req = arg;
	struct rdmalock_how how = rdmalock_file_how(req);
	struct rdmalock_lock_name key;
	struct rdmalock_domain *dom;
	struct rdmalock_held *h;
	bool busy;
	int ret;

	if ((req->flags & ~(RDMALOCK_LOCK_F_TRY | RDMALOCK_LOCK_F_CONVERT |
			    RDMALOCK_LOCK_F_NOTIFY)) ||
	    rdmalock_lkmode_of(req->mode) == RDMALOCK_LK_IV ||
	    strnlen(req->name, RDMALOCK_NAME_MAX) == RDMALOCK_NAME_MAX)
		return -EINVAL;
	if (req->flags & RDMALOCK_LOCK_F_CONVERT)
		return req->flags & RDMALOCK_LOCK_F_NOTIFY ? -EINVAL :
		       rdmalock_ioc_convert(f, req);
	ret = rdmalock_req_key(req, &key);
	if (ret)
		return ret;
	dom = rdmalock_domain_get(req->name);
	if (!dom)
		return -ENOENT;
	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h) {
		rdmalock_domain_put(dom);
		return -ENOMEM;
	}
	h->f = f;
	INIT_LIST_HEAD(&h->event);
	h->key = key;
	h->by_name = req->lock_name;
	if (h->by_name)
		ret = rdmalock_lock_setup_name(&h->lk, dom, h->key.name, h->key.len);
	else
		ret = rdmalock_lock_setup(&h->lk, dom, req->id);
	if (!ret && req->value)
		ret = rdmalock_held_want_value(h, req);
	if (!ret && (req->flags & RDMALOCK_LOCK_F_NOTIFY))
		ret = rdmalock_lock_set_blocking(&h->lk, rdmalock_held_blocked, h);
	if (ret)
		goto err_free;
	h->pending = true;
	/* Checked and claimed at once: two LOCKs of one lock cannot both pass. */
	mutex_lock(&f->lock);
	busy = rdmalock_file_has(f, dom, &h->key);
	if (!busy)
		list_add_tail(&h->entry, &f->held);
	mutex_unlock(&f->lock);
	if (busy) {
		ret = -EDEADLK;
		goto err_free;
	}
	ret = rdmalock_acquire(&h->lk, req->mode, &how);
	if (!ret && req->value) {
		ret = rdmalock_held_give_value(h, req);
		if (ret)
			rdmalock_unlock(&h->lk);
	}
	mutex_lock(&f->lock);
	if (ret)
		list_del(&h->entry);
	else
		h->pending = false;
	mutex_unlock(&f->lock);
	if (!ret)
		return 0;
err_free:
	rdmalock_held_teardown(h);
	rdmalock_domain_put(dom);
	kfree(h);
	return ret;
}

/**
 * rdmalock_ioc_unlock() - RDMALOCK_IOC_UNLOCK
 * @file: the open file that holds the lock
 * @arg: &struct rdmalock_lock_req
 *
 * Return: 0, -EINVAL, -EFAULT, -ENOENT when this file does not hold it,
 * or what rdmalock_unlock() says (the lock is released all the same),
 * such as -ESHUTDOWN when its domain was destroyed meanwhile.
 */
long rdmalock_ioc_unlock(struct file *file, void *arg)
{
	struct rdmalock_file *f = file->private_data;
	struct rdmalock_lock_req *req = arg;
	struct rdmalock_held *h;

	if (req->flags || strnlen(req->name, RDMALOCK_NAME_MAX) == RDMALOCK_NAME_MAX)
		return -EINVAL;
	h = rdmalock_file_claim(f, req, true);
	if (IS_ERR(h))
		return PTR_ERR(h);
	return rdmalock_held_free(h);
}
