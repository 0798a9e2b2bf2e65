// Compiled into every plugin library by lanes_add_plugin (lanesConfig.cmake):
// the lanes release and plugin API the library is built against. lanes reads
// it from the file (section .lanes_plugin) before it loads the library, and
// refuses a library whose stamp is not its own.

#include "lanes/core/Version.h"

extern "C" {
__attribute__((used, section(".lanes_plugin"))) char const lanesPluginStamp[] = LANES_PLUGIN_STAMP;
}
