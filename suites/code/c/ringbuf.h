/*
 * ringbuf.h - fixed-size single-producer/single-consumer byte ring buffer.
 *
 * The capacity must be a power of two so that index wrapping is a mask
 * instead of a division. One slot is never left unused: head and tail are
 * free-running counters and the fill level is (head - tail).
 */
#ifndef RINGBUF_H
#define RINGBUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RINGBUF_MIN_CAPACITY 16u
#define RINGBUF_MAX_CAPACITY (1u << 30)

struct ringbuf {
    uint8_t *data;
    size_t   mask;   /* capacity - 1 */
    size_t   head;   /* total bytes ever written */
    size_t   tail;   /* total bytes ever read */
};

int    ringbuf_init(struct ringbuf *rb, size_t capacity);
void   ringbuf_free(struct ringbuf *rb);
size_t ringbuf_write(struct ringbuf *rb, const void *src, size_t len);
size_t ringbuf_read(struct ringbuf *rb, void *dst, size_t len);
size_t ringbuf_peek(const struct ringbuf *rb, void *dst, size_t len);

static inline size_t ringbuf_used(const struct ringbuf *rb)
{
    return rb->head - rb->tail;
}

static inline size_t ringbuf_free_space(const struct ringbuf *rb)
{
    return rb->mask + 1 - ringbuf_used(rb);
}

static inline bool ringbuf_empty(const struct ringbuf *rb)
{
    return rb->head == rb->tail;
}

#ifdef __cplusplus
}
#endif

#endif /* RINGBUF_H */
