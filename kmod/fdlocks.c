// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock: locks held by an open file of /dev/rdmalock
 * (RDMALOCK_IOC_LOCK and _UNLOCK), released when the file is closed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "cluster.h"
#include "locks.h"
#include "rdmalock-pri.h"

/*
 * A lock of the file; @pending while its LOCK is under way. @lvb is the
 * handle's LVB, with a value.
 */
struct rdmalock_held {
	struct list_head entry;
	struct rdmalock_lock lk;
	bool pending;
	u8 lvb[RDMALOCK_LVB_MAX];
};

/*
 * What an open file holds. The mutex is not held while a LOCK waits, so
 * that another thread can UNLOCK meanwhile; a LOCK under way is on the
 * list, pending, so that a second LOCK of the same lock finds it.
 */
struct rdmalock_file {
	struct mutex lock;		/* protects held */
	struct list_head held;
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
	file->private_data = f;
	return 0;
}

static int rdmalock_held_free(struct rdmalock_held *h)
{
	int ret = rdmalock_unlock(&h->lk);

	rdmalock_lock_teardown(&h->lk);
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

/*
 * Under f->lock. A lock of a destroyed domain keeps its name, so that
 * UNLOCK of it reports the destruction.
 */
static struct rdmalock_held *rdmalock_file_find(struct rdmalock_file *f,
						const char *name, u64 id)
{
	struct rdmalock_held *h;

	list_for_each_entry(h, &f->held, entry)
		if (!h->pending && h->lk.id == id &&
		    !strncmp(h->lk.dom->attr.name, name, RDMALOCK_NAME_MAX))
			return h;
	return NULL;
}

/* Under f->lock: held or pending, in this very domain. */
static bool rdmalock_file_has(struct rdmalock_file *f,
			      struct rdmalock_domain *dom, u64 id)
{
	struct rdmalock_held *h;

	list_for_each_entry(h, &f->held, entry)
		if (h->lk.dom == dom && h->lk.id == id)
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

/* LOCK with RDMALOCK_LOCK_F_CONVERT: a lock this file holds changes mode. */
static long rdmalock_ioc_convert(struct rdmalock_file *f,
				 const struct rdmalock_lock_req *req)
{
	struct rdmalock_how how = rdmalock_file_how(req);
	struct rdmalock_lock_value val;
	struct rdmalock_held *h;
	int ret;

	if (req->value) {
		ret = rdmalock_value_from_user(req, &val);
		if (ret)
			return ret;
	}
	/* Pending, it is this call's alone: UNLOCK and CONVERT do not find it. */
	mutex_lock(&f->lock);
	h = rdmalock_file_find(f, req->name, req->id);
	if (h)
		h->pending = true;
	mutex_unlock(&f->lock);
	if (!h)
		return -ENOENT;
	if (req->value)
		memcpy(h->lvb, val.lvb, h->lk.lvb_len);
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
 * value, or the lock's errors.
 */
long rdmalock_ioc_lock(struct file *file, void *arg)
{
	struct rdmalock_file *f = file->private_data;
	struct rdmalock_lock_req *req = arg;
	struct rdmalock_how how = rdmalock_file_how(req);
	struct rdmalock_domain *dom;
	struct rdmalock_held *h;
	bool busy;
	int ret;

	if ((req->flags & ~(RDMALOCK_LOCK_F_TRY | RDMALOCK_LOCK_F_CONVERT)) ||
	    rdmalock_lkmode_of(req->mode) == RDMALOCK_LK_IV || req->reserved ||
	    strnlen(req->name, RDMALOCK_NAME_MAX) == RDMALOCK_NAME_MAX)
		return -EINVAL;
	if (req->flags & RDMALOCK_LOCK_F_CONVERT)
		return rdmalock_ioc_convert(f, req);
	dom = rdmalock_domain_get(req->name);
	if (!dom)
		return -ENOENT;
	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h) {
		rdmalock_domain_put(dom);
		return -ENOMEM;
	}
	ret = rdmalock_lock_setup(&h->lk, dom, req->id);
	if (!ret && req->value)
		ret = rdmalock_held_want_value(h, req);
	if (ret)
		goto err_free;
	h->pending = true;
	/* Checked and claimed at once: two LOCKs of one lock cannot both pass. */
	mutex_lock(&f->lock);
	busy = rdmalock_file_has(f, dom, req->id);
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
	rdmalock_lock_teardown(&h->lk);
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
	struct rdmalock_lock_value val;
	struct rdmalock_held *h;
	int ret;

	if (req->flags || req->reserved ||
	    strnlen(req->name, RDMALOCK_NAME_MAX) == RDMALOCK_NAME_MAX)
		return -EINVAL;
	if (req->value) {
		ret = rdmalock_value_from_user(req, &val);
		if (ret)
			return ret;
	}
	mutex_lock(&f->lock);
	h = rdmalock_file_find(f, req->name, req->id);
	if (h)
		list_del(&h->entry);
	mutex_unlock(&f->lock);
	if (!h)
		return -ENOENT;
	if (req->value)
		memcpy(h->lvb, val.lvb, h->lk.lvb_len);
	return rdmalock_held_free(h);
}
