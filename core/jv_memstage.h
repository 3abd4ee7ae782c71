/* jv_memstage: a probe of the process's memory at the stage boundaries of an analysis, for finding where the
 * peak RSS is. Silent unless the environment sets JV_DEBUG_MEM (to anything). */
#ifndef JV_MEMSTAGE_H
#define JV_MEMSTAGE_H

/* With JV_DEBUG_MEM set: writes one line to stderr, "jv-mem: STAGE rss R hwm H MiB wall W cpu C s", where R is
 * VmRSS now, W the seconds since the process started (10 ms steps), C the process's CPU time so far (user + system, all
 * threads) and H the peak RSS since the previous probe (VmHWM, then reset through /proc/self/clear_refs), so that each
 * stage's own peak shows. Linux only (elsewhere, and without JV_DEBUG_MEM, it does nothing). The reset also lowers what
 * getrusage and /usr/bin/time report as the peak: measure the peak without JV_DEBUG_MEM. */
void jv_mem_stage(const char *stage);

#endif
