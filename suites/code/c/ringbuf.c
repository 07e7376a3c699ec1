// SPDX-License-Identifier: MIT
/*
 * ringbuf.c - implementation, kernel style (tabs, 8 columns).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ringbuf.h"

static int is_power_of_two(size_t n)
{
	return n != 0 && (n & (n - 1)) == 0;
}

int ringbuf_init(struct ringbuf *rb, size_t capacity)
{
	if (!rb)
		return -EINVAL;
	if (capacity < RINGBUF_MIN_CAPACITY || capacity > RINGBUF_MAX_CAPACITY ||
		!is_power_of_two(capacity))
		return -EINVAL;

	rb->data = malloc(capacity);
	if (!rb->data)
		return -ENOMEM;
	rb->mask = capacity - 1;
	rb->head = 0;
	rb->tail = 0;
	return 0;
}

void ringbuf_free(struct ringbuf *rb)
{
	if (!rb)
		return;
	free(rb->data);
	memset(rb, 0, sizeof(*rb));
}

/* Copy len bytes starting at logical offset pos, handling the wrap-around. */
static void copy_out(const struct ringbuf *rb, size_t pos, void *dst, size_t len)
{
	size_t off = pos & rb->mask;
	size_t first = rb->mask + 1 - off;

	if (first > len)
		first = len;
	memcpy(dst, rb->data + off, first);
	memcpy((uint8_t *)dst + first, rb->data, len - first);
}

size_t ringbuf_write(struct ringbuf *rb, const void *src, size_t len)
{
	size_t space = ringbuf_free_space(rb);
	size_t off, first;

	if (len > space)
		len = space;    /* short write: caller retries with the rest */
	if (len == 0)
		return 0;

	off = rb->head & rb->mask;
	first = rb->mask + 1 - off;
	if (first > len)
		first = len;
	memcpy(rb->data + off, src, first);
	memcpy(rb->data, (const uint8_t *)src + first, len - first);
	rb->head += len;
	return len;
}

size_t ringbuf_peek(const struct ringbuf *rb, void *dst, size_t len)
{
	size_t used = ringbuf_used(rb);

	if (len > used)
		len = used;
	if (len)
		copy_out(rb, rb->tail, dst, len);
	return len;
}

size_t ringbuf_read(struct ringbuf *rb, void *dst, size_t len)
{
	len = ringbuf_peek(rb, dst, len);
	rb->tail += len;
	return len;
}
