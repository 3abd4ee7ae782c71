/* PLACEHOLDER: being written (the standalone reports) */
#ifndef JV_STANDALONE_H
#define JV_STANDALONE_H
#endif
