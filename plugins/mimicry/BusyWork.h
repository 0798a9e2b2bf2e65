#pragma once
// CPU work that costs a given amount of the calling thread's CPU time.

namespace lanes::mimicry {

// CPU time consumed so far by the calling thread (CLOCK_THREAD_CPUTIME_ID), in seconds.
double threadCpuSeconds();

// Burns `seconds` of the calling thread's CPU time with arithmetic the
// compiler cannot remove. Time spent descheduled does not count, so under
// oversubscription the call takes longer in wall-clock time. Bursts under
// 50 µs run as many steps as that time holds (measured once per process)
// rather than watching the clock, whose reads would cost more. Thread-safe.
void burnCpu(double seconds);

}  // namespace lanes::mimicry
