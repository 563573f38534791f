package dev.tablecache.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/** The INFO-and-above events one logger writes while attached ("LEVEL message" lines). */
public final class CapturedLog extends AbstractAppender {
  private final List<String> lines = new ArrayList<>();
  private final String loggerName;

  private CapturedLog(String loggerName) {
    super("captured-" + loggerName, null, null, true, Property.EMPTY_ARRAY);
    this.loggerName = loggerName;
  }

  public static CapturedLog attach(String loggerName) {
    CapturedLog c = new CapturedLog(loggerName);
    c.start();
    LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
    Configuration config = ctx.getConfiguration();
    LoggerConfig own = new LoggerConfig(loggerName, Level.INFO, true);
    own.addAppender(c, Level.INFO, null);
    config.addLogger(loggerName, own);
    ctx.updateLoggers();
    return c;
  }

  public void detach() {
    LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
    ctx.getConfiguration().removeLogger(loggerName);
    ctx.updateLoggers();
    stop();
  }

  @Override
  public synchronized void append(LogEvent event) {
    lines.add(event.getLevel() + " " + event.getMessage().getFormattedMessage());
  }

  public synchronized List<String> lines() {
    return new ArrayList<>(lines);
  }
}
