package discord

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"
)

// Bounds of the waits after a 429.
const (
	// maxRateLimitRetries is how many times a call refused with 429 is
	// tried again before giving up. discordgo's own retry has no limit
	// (and ignores the context), so calls that may meet 429s disable it
	// and go through retryRateLimited.
	maxRateLimitRetries = 5
	// maxRetryAfter is the longest retry_after waited out; a longer one
	// (a ban of the bot for too many invalid requests) is given up at once.
	maxRetryAfter = time.Minute
)

// guildQueues runs the role changes of each server one after the other,
// in the order they came, on one worker per server that has changes
// waiting: a burst to one server stays in order and waits out its 429s
// without delaying the other servers. Workers end when their server's
// queue is empty, so idle servers cost nothing.
type guildQueues struct {
	mu     sync.Mutex
	queues map[string][]*roleJob // present while the server's worker runs
}

// roleJob is one queued call.
type roleJob struct {
	ctx  context.Context
	run  func(context.Context) error
	done chan error
}

func newGuildQueues() *guildQueues { return &guildQueues{queues: map[string][]*roleJob{}} }

// submit queues run for the guild and returns the channel its result
// comes on. A job whose context ends while it waits is not run.
func (q *guildQueues) submit(ctx context.Context, guild string, run func(context.Context) error) <-chan error {
	j := &roleJob{ctx: ctx, run: run, done: make(chan error, 1)}
	q.mu.Lock()
	waiting, busy := q.queues[guild]
	q.queues[guild] = append(waiting, j)
	q.mu.Unlock()
	if !busy {
		go q.work(guild)
	}
	return j.done
}

// do runs run in the guild's queue and returns its result, or ctx's error
// when ctx ends first.
func (q *guildQueues) do(ctx context.Context, guild string, run func(context.Context) error) error {
	select {
	case err := <-q.submit(ctx, guild, run):
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// work runs the guild's jobs in order until none is left.
func (q *guildQueues) work(guild string) {
	for {
		q.mu.Lock()
		jobs := q.queues[guild]
		if len(jobs) == 0 {
			delete(q.queues, guild)
			q.mu.Unlock()
			return
		}
		j := jobs[0]
		jobs[0] = nil
		q.queues[guild] = jobs[1:]
		q.mu.Unlock()
		if err := j.ctx.Err(); err != nil {
			j.done <- err
			continue
		}
		j.done <- j.run(j.ctx)
	}
}

// retryRateLimited makes call with the request options it must pass on:
// a context bounded by restTimeout, and discordgo's retry on 429 disabled.
// After a 429 it waits retry_after, or until ctx ends, and calls again, at
// most maxRateLimitRetries times; then it returns the last 429 as an
// error. Other errors return at once.
func retryRateLimited(ctx context.Context, call func(...discordgo.RequestOption) error) error {
	for try := 0; ; try++ {
		err := callOnce(ctx, call)
		var rl *discordgo.RateLimitError
		if !errors.As(err, &rl) {
			return err
		}
		wait := time.Duration(0)
		if rl.RateLimit != nil && rl.TooManyRequests != nil {
			wait = rl.RetryAfter
		}
		switch {
		case try == maxRateLimitRetries:
			return fmt.Errorf("still rate limited after %d tries: %w", try+1, err)
		case wait > maxRetryAfter:
			return fmt.Errorf("rate limited for %s: %w", wait, err)
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("waiting out a rate limit: %w", ctx.Err())
		}
	}
}

// callOnce makes one call within restTimeout, without discordgo's retry
// on 429.
func callOnce(ctx context.Context, call func(...discordgo.RequestOption) error) error {
	ctx, cancel := context.WithTimeout(ctx, restTimeout)
	defer cancel()
	return call(discordgo.WithContext(ctx), discordgo.WithRetryOnRatelimit(false))
}
