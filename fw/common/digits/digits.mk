# The digits workload (digits.h), for an application with `APP_USES += digits`:
# its source and header folder; irqlab/builders/firmware.py writes gen/digits_model.h.
APP_EXT_SRCS += $(HERE)common/digits/digits.c
APP_EXT_INCLUDES += $(HERE)common/digits
# In firmware each inference is one software event (CH_DIGITS); host tests build without.
APP_CFLAGS += -DDIGITS_TRACE
