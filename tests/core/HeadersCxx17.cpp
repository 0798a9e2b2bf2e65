// Compiled as C++17 only: fails the build if a public header needs C++20.
#include "lanes/core/Completion.h"
#include "lanes/core/Event.h"
#include "lanes/core/EventId.h"
#include "lanes/core/EventProcessor.h"
#include "lanes/core/Exception.h"
#include "lanes/core/JobConfig.h"
#include "lanes/core/ModuleTypes.h"
#include "lanes/core/Options.h"
#include "lanes/core/PluginRegistry.h"
#include "lanes/core/ProcessingObserver.h"
#include "lanes/core/Source.h"

static_assert(__cplusplus < 202002L, "this file must be compiled as C++17");
